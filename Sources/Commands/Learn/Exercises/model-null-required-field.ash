# A required field that is null still maps
#: seed 003
#: level 2
#: goal Have 'user me' fetch from the API Ada's user with "last_name": null, and get that user stored as the logged-in account: 'auth show' must then name the user just (Ada).
#: hint 'help model' says what ModelFactory does with null and with a missing required field; 'help net fault' shows how the embedded API can answer with a body of your choosing.
#: hint A fault can answer GET /users/me with --status 200 and a --body: a whole response in the API convention, {"code":"OK","data":{...}}, with a type, an id, first_name, last_name and email.
#: hint net fault GET /users/me --status 200 --body '{"code":"OK","data":{"type":"User","id":"6955b900-0000-4000-8000-000000000000","first_name":"Ada","last_name":null,"email":"ada@example.com"}}' then user me.
#: why APIFieldMapper turns JSON null into nil, and a required field that is nil is only logged (here at Error under the tag Model): the object is still built, stored and shown. People expect 'required' to reject the object; in BDModules it only means "complain".

## setup
set password lovelace --secret
auth login ada@example.com $password

## check
auth show
expect contains "(Ada)"
log show --tag Model
expect contains "data.last_name: required field 'lastName' is missing"

## solution
net fault GET /users/me --status 200 --body '{"code":"OK","data":{"type":"User","id":"6955b900-0000-4000-8000-000000000000","first_name":"Ada","last_name":null,"email":"ada@example.com"}}'
user me

## wrong
model map User '{"type":"User","id":"6955b900-0000-4000-8000-000000000000","first_name":"Ada","last_name":null,"email":"ada@example.com"}'
