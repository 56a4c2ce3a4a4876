# BDModules (seed 003), models: ModelFactory reads an API object's 'type' and maps it with that
# type's field mappers into a value object (a type and a dictionary, equal by dictionary) or a
# model object (with a uuid from 'id' and a pagingId from 'paging_id', the same object when type
# and uuid are). Run it with `archsh --db :memory: --echo -f examples/models.ash`.

## Types and mappers
# The example app's types, field for field as the original's HarnessModules/Model declares them:
# apiKeyPath→modelKey, required, and the kind. Profile is a protocol there, adopted by User.
model types

# A trip nests a User (its profile) and two Locations. JSON null becomes nil ('-').
model map Trip @files/trip.json
expect contains "identity:  Trip 6955b900-0000-4000-8000-00000000a001"
# The same object as JSON, pretty-printed by JSONFactory's serializer.
model map Trip @files/trip.json --json

# A missing required field is logged under the tag Model, and the object is still built.
model map Location '{"type":"Location","id":"6955b900-0000-4000-8000-000000000001","title":"Polk Street","latitude":37.79,"longitude":-122.42,"image_url":null}'
expect contains "warning: $.subtitle: required field 'subtitle' is missing"
log show --tag Model

## Identity
# Ids and paging ids are strings, as the original's ModelObject keeps them: any non-empty id maps
# (the seed's own example is 'alt-3a91f950-…'). The convention's time-sortable UUID is for 'api lint'.
model map User '{"type":"User","id":"123","paging_id":"abc","first_name":"Ada","last_name":"Lovelace","email":"ada@example.com"}'
expect contains "paging_id: abc"

# Two model objects are the same when type and uuid are, whatever else differs.
model eq '{"type":"Location","id":"123","title":"Home","subtitle":"Pacifica, CA","latitude":1,"longitude":2}' '{"type":"Location","id":"123","title":"House","subtitle":"Pacifica, CA","latitude":1,"longitude":2}'
expect contains "same_dictionary: no"

## Responses and mistakes
# A whole response, as the seed's parsers receive it: {"data": {…}} goes through the default
# object parser (the seed's printed User, with its image URLs)...
model parse @files/user.json
expect contains "coverImageURL"
# ...and {"data": […], "info": …} through the collection parser, which needs only info.total:
# this page has no offset, and a count that is not its size, as the original's tests send them.
model parse @files/page.json
expect contains "total:    12"

# The seed crashes on a missing or unknown type; here each mistake is one line that says where.
model map Location '{"type":"Locaton","id":"6955b900-0000-4000-8000-000000000001"}'
expect fails "no field mappers are registered for the type 'Locaton' (did you mean 'Location'?)"
model map Location '{"id":"6955b900-0000-4000-8000-000000000001"}'
expect fails "the object has no 'type'"
model map Location '{"type":"Location","id":"","title":"a","latitude":1,"longitude":2}'
expect fails "is not an id: expected a non-empty string"
model map Location '{"type":"Location","id":"123","paging_id":[7]}'
expect fails "paging_id: expected a string or a number"
model map Trip '{"type":"Trip","id":"6955b900-0000-4000-8000-00000000a001","profile":{"first_name":"Ada"}}'
expect fails "$.profile: the object has no 'type'"

## APIServiceClient and the convention
# APIServiceClient: a request through OAuth2Authorization, mapped by the object parser. UserAPI's
# me() is one, for User.
set password lovelace --secret
auth login ada@example.com $password
client get User /users/me
expect contains "coverImageURL    cover_image_url"
client get Location /users/me
expect fails "the object is a 'User', not a 'Location'"

# 'api lint' checks a response against the convention; each finding is one located line. The ids
# that mapped above are findings here: the convention asks for time-sortable UUIDs, and for an
# info with offset, count and total that agree with the data.
api lint /users/me/locations
expect contains "conforms"
api lint @files/page.json
expect fails "6 findings"
# Findings make it fail, as a linter does: it prints them, then exits 1 unless an expect follows.
api lint @files/bad-collection.json
expect fails "8 findings"
