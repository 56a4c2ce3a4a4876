# NetworkController (Lickability, seed 000): a request over real HTTP, the NetworkResponse it completes with, and each failure it can report.
# Step through it with `archsh --step --tour network`; the suite checks its output.

## A request and its NetworkResponse
# The first command that needs the network starts the demo API on 127.0.0.1.
net api
# performRequest completes with a Result: the decoded value, or the error. `net get` shows a
# little more for learning: the status, the bytes and the time, then the decoded envelope.
net get /products/1
expect contains "200"
# performFullResponseRequest, the full variant, completes with a NetworkResponse: the HTTP
# response (its headers here), the raw data and the result. It also returns the URLSessionTask,
# so that the caller can cancel it; here Ctrl-C while a request waits is that cancel().
net get /products/2 --full
expect contains "Content-Type"
expect contains "URLSessionTask"

## Failures a NetworkController reports
# A transport error (the connection dropped) is a failure, not a crash.
net fault GET /products/3 --drop
net get /products/3
expect fails
# `net get` shows whatever arrived: a body that is not JSON has a status and bytes, no envelope
# to decode, and the place where its JSON breaks.
net fault GET /products/3 --malformed
net get /products/3
# A controller that decodes it (ProductUpdater's NetworkController, with the JSON deserializer)
# fails the result instead.
net fault GET /products/3 --malformed
product update 3
expect fails "not valid JSON"
# No data at all is the seed's emptyResponseData.
net fault GET /products/3 --empty
product update 3
expect fails emptyResponseData
# An error status carries the API's own code and message.
net fault GET /products/3 --status 503
net get /products/3
expect fails "503"

## Timeouts and the log
# An answer slower than the timeout fails too.
net timeout 200ms
net fault GET /products/4 --delay 1s
net get /products/4
expect fails
net timeout 10s
# Each fault applied to one request only, so none is left; `net log` lists every request
# NetworkController sent, with its status, bytes and time.
net faults
