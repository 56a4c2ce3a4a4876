# BDModules (seed 003), APISessionManager: every request goes through performRequest(method:path:
# parameters:headers:files:), relative to a dynamic base URL that a redirect can swap. The demo
# API's /echo answers with exactly what it received.
# Run it with `archsh --db :memory: --echo -f examples/session.ash`.

## performRequest
# Parameters go in the query for GET, HEAD and DELETE, and in a JSON body otherwise.
session request GET /echo -p q=swift -p page=2
expect contains '"query":{"q":"swift","page":"2"}'
session request DELETE /echo -p id=7
session request POST /echo -p name=Ada -H X-Client:archsh
expect contains '"parameters":{"name":"Ada"}'

# Files go as multipart parts, beside the parameters; each part arrives with its name, file name,
# type and size. --json prints the whole response, headers and body included.
session request PUT /echo -p caption=me --file avatar=@files/avatar.png --file 'menu=@menu.json;type=text/plain' --json

## Redirects
# A redirect's Location swaps dynamicBaseURL, for this session manager and for APIFactory. The
# demo API also answers under /v2, so the swapped base keeps working.
net fault GET /echo --redirect /v2
session request GET /echo
expect contains "dynamic_base_url: http://127.0.0.1:"
session base
session request GET /products/1
expect contains "request:      GET http://127.0.0.1:"
session base reset

## Logs and mistakes
# Each request was logged under the tag API: [REQUEST] and [RESPONSE] at Info.
log show --tag API --limit 4

# Mistakes are one line each, and the session goes on.
session request FETCH /echo
expect fails "'FETCH' is not a valid METHOD"
session request GET /echo -H "Bad Header:x"
expect fails "'Bad Header' is not a header name"
session request GET /echo -H "Café:x"
expect fails "'Café' is not a header name"
session request GET /echo -H X-Client
expect fails "is not NAME:VALUE"
session request POST /echo --file avatar=@files/missing.png
expect fails "files/missing.png' (a relative path starts in the script's folder"
session request GET /echo --file avatar=@files/avatar.png
expect fails "cannot carry files"

# A server that does not answer in time.
net timeout 300ms
net fault GET /echo --delay 2s
session request GET /echo
expect fails "timed out after 300ms"
net timeout 5s
