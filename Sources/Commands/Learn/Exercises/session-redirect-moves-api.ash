# One redirect moves every later request
#: seed 003
#: level 2
#: goal The API now also lives under /v2. Without typing /v2 into any request path and without 'session base URL', make a 'user me' request go to …/v2/users/me.
#: forbid session base, session request GET /v2*, session request POST /v2*, net get /v2*, user me /v2*
#: hint 'help session' explains dynamicBaseURL and what a redirect does to it; 'help net fault' shows how the embedded API can answer with a redirect.
#: hint A fault only acts when a request asks for its method and path. 'user me' builds brand-new session managers each time: where do they take their base URL from?
#: hint net fault GET /echo --redirect /v2, then session request GET /echo (the redirect swaps the base URL, for APIFactory too), then user me.
#: why APIFactory's redirection block swaps the factory's own baseURL as well as that session manager's dynamicBaseURL, so one same-origin redirect, on any path, moves every session manager built afterwards (and each 'user me' builds new ones). A redirect fault that no request ever asks for changes nothing.

## setup
set password lovelace --secret
auth login ada@example.com $password

## check
log show --tag API
expect contains "/v2/users/me in "

## solution
net fault GET /echo --redirect /v2
session request GET /echo
user me

## wrong
net fault GET /echo --redirect /v2
user me

## cheat
session request GET /v2/users/me
