# BDModules (seed 003), models: ModelFactory reads an API object's 'type' and maps it with that
# type's field mappers into a value object (a type and a dictionary, equal by dictionary) or a
# model object (with a uuid from 'id' and a pagingId from 'paging_id', the same object when type
# and uuid are). Run it with `archsh --db :memory: --echo -f examples/models.ash`.

# The example app's types and their field mappers: apiKeyPath→modelKey, required, and the kind.
model types

# A trip nests a Profile value object and Location model objects (one value array of stops).
# JSON null becomes nil ('-').
model map Trip @files/trip.json
expect contains "identity:  Trip 6955b900-0000-4000-8000-00000000a001"
# The same object as JSON, pretty-printed by JSONFactory's serializer.
model map Trip @files/trip.json --json

# A missing required field is logged under the tag Model, and the object is still built.
model map Location '{"type":"Location","id":"6955b900-0000-4000-8000-000000000001","latitude":51.5,"longitude":-0.1}'
expect contains "warning: $.name: required field 'name' is missing"
log show --tag Model

# Two value objects are equal when their dictionaries are, in any order.
model eq '{"type":"Profile","display_name":"Ada","bio":"x"}' '{"bio":"x","type":"Profile","display_name":"Ada"}'
# Two model objects are the same when type and uuid are, whatever else differs.
model eq '{"type":"Location","id":"6955b900-0000-4000-8000-000000000001","name":"Home","latitude":1,"longitude":2}' '{"type":"Location","id":"6955b900-0000-4000-8000-000000000001","name":"House","latitude":1,"longitude":2}'
expect contains "same_dictionary: no"

# The seed crashes on a missing or unknown type; here each mistake is one line that says where.
model map Location '{"type":"Locaton","id":"6955b900-0000-4000-8000-000000000001"}'
expect fails "no field mappers are registered for the type 'Locaton' (did you mean 'Location'?)"
model map Location '{"id":"6955b900-0000-4000-8000-000000000001"}'
expect fails "the object has no 'type'"
model map Location '{"type":"Location","id":"42","name":"a","latitude":1,"longitude":2}'
expect fails "'42' is not a UUID"
model map Location '{"type":"Location","id":"6955b900-0000-4000-8000-000000000001","paging_id":"7"}'
expect fails "paging_id: expected a whole number"
model map Trip '{"type":"Trip","id":"6955b900-0000-4000-8000-00000000a001","profile":{"display_name":"Ada"}}'
expect fails "$.profile: the object has no 'type'"

# APIServiceClient: a request through OAuth2Authorization, mapped by the object parser. UserAPI's
# me() is one, for User.
set password lovelace --secret
auth login ada@example.com $password
client get User /users/me
expect contains "profile      profile       ValueObject"
client get Location /users/me
expect fails "the object is a 'User', not a 'Location'"

# 'api lint' checks a response against the convention; each finding is one located line.
api lint /users/me/locations
expect contains "conforms"
# Findings make it fail, as a linter does: it prints them, then exits 1 unless an expect follows.
api lint @files/bad-collection.json
expect fails "8 findings"
