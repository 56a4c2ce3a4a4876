# A 200 with no data is a failure
#: seed 000/001
#: level 2
#: goal Product 3 is cached. Make the API answer a request for /products/3 with status 200 and no body at all, so that NetworkController reports the seed's emptyResponseData, and leave the cached copy of product 3 in place.
#: hint 'help net fault' lists the ways the embedded API can misbehave; 'net log --no-timings' shows each request's status and bytes.
#: hint An empty JSON object is still data: NetworkController would try to decode it and fail differently. You need a body of zero bytes.
#: hint 'net fault GET /products/3 --empty', then 'product update 3'.
#: why NetworkController checks for data before it decodes: no data at all is emptyResponseData even with a 200, while a body such as {} is data, and fails as a deserialization error instead. Either way ProductUpdater completes with .failure and persists nothing, so the cached copy survives.

## setup
product update 3

## check
net log --no-timings
expect contains "200      0"
product show 3
expect contains "iPhone 15"

## solution
net fault GET /products/3 --empty
product update 3
expect fails emptyResponseData

## wrong
net fault GET /products/3 --status 200 --body '{}'
product update 3
expect fails "cannot decode"
