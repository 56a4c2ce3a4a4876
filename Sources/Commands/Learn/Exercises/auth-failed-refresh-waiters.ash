# One failed refresh, five failed requests
#: seed 003
#: level 2
#: goal Make a single token refresh fail while five requests are waiting on it, so that all five get its error at once; you must still be logged in as ada@example.com afterwards.
#: hint 'help auth' explains what OAuth2Authorization does with a 401; 'help net fault' shows how to make the embedded API refuse a request.
#: hint Requests wait on a refresh only after a 401, and they get a 401 only once the access token has expired ('auth expire'). 'auth burst N PATH' fires N requests at once.
#: hint Make POST /oauth/token fail slowly, so that all five 401s arrive while the refresh is still out: net fault POST /oauth/token --status 500 --delay 500ms, then auth expire, then auth burst 5 /users/me.
#: why OAuth2Authorization starts one refresh however many requests got 401; when it fails, every queued caller gets that same error and the stored credential is not cleared, so the next request simply refreshes again. People expect either one refresh per request or a logout.

## setup
set password lovelace --secret
auth login ada@example.com $password

## check
log show --tag OAuth2
expect contains "5 queued request(s) get the error, and the credential is kept"
auth show
expect contains "email:         ada@example.com"

## solution
net fault POST /oauth/token --status 500 --delay 500ms
auth expire
auth burst 5 /users/me --summary

## wrong
net fault POST /oauth/token --status 500 --delay 500ms
auth burst 5 /users/me --summary
