# ProductUpdater (Lickability, seeds 000 and 001): NetworkController fetches, PersistenceController
# keeps. Everything travels over real HTTP to the demo API, which archsh starts on 127.0.0.1 the
# first time a command needs it. Run it with `archsh --db :memory: --echo -f examples/products.ash`.

## updateProduct(from:)
# The demo API serves the example app's catalog in the BDModules envelope.
product list --limit 5
net get /products/2
expect contains '"name":"iPhone 15 Pro"'

# updateProduct(from:) fetches, decodes and persists under the URL; product(from:) reads disk only.
trace on
product update 2
trace off
product show 2
expect contains "iPhone 15 Pro"
product show 7
expect fails "product 7 is not cached"

## Faults over real HTTP
# Faults are injected on the server side, so each error arrives over real HTTP.
# An error status carries the API's code and message; the cached copy is left as it was.
net fault GET /products/2 --status 503
product update 2
expect fails "HTTP 503 ServiceUnavailable"
# The fault applied once; the next update succeeds.
product update 2
expect contains "iPhone 15 Pro"

# A body that is not there, not JSON, or not a Product, each with its own error.
net fault GET /products/2 --empty
product update 2
expect fails emptyResponseData
net fault GET /products/2 --malformed
product update 2
expect fails "not valid JSON"
net fault GET /products/2 --status 200 --body '{"code":"OK","data":{"type":"product","id":2}}'
product update 2
expect fails "at 'data.name': the field is missing"

# A connection dropped halfway, and an answer slower than the timeout.
net fault GET '/products/*' --drop
product update 2
expect fails "the body ended after 20 of 4096 bytes"
net timeout 200ms
net fault GET /products/2 --delay 1s
product update 2
expect fails "timed out after 200ms"
net timeout 5s

# After all of that, the cache still holds the good copy.
product show 2
expect contains '$999.00'

# A fault lasts for --times N requests, or always, until 'net fault clear' removes every fault,
# or 'net fault clear PATH' those added for PATH.
net fault '*' '/products*' --status 500 --times always
net faults
product list --limit 1
expect fails "HTTP 500 InternalError"
net fault clear '/products*'
product list --limit 1

## The Translator
# Translator: a cached Product becomes the view model its cell shows.
product translate 2
product update 1
product translate 1
expect contains Premium

## MagazineIssueUpdater
# MagazineIssueUpdater: an issue, then one of its assets, persisted in 'issues' and 'issueAssets'.
issue update 3
issue asset 3 styles.css
store bytes issueAssets
