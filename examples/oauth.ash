# BDModules (seed 003), OAuth2: OAuth2SessionManager grants and refreshes tokens, AccountUserProvider
# keeps the credential (a keychain on iOS, the workspace's 'user' store here), and
# OAuth2Authorization refreshes an expired token once, however many requests got 401, and replays
# them. Everything travels over real HTTP to the embedded demo API on 127.0.0.1.
# Run it with `archsh --db :memory: --echo -f examples/oauth.ash`.

## Logging in
# A password in a script comes from a secret variable (or --password-stdin); the line that holds
# it never reaches the history, a trace or the log.
set password lovelace --secret

# 'auth login' is the seed's UserAPI.login: OAuth2SessionManager's password grant (a JSON body,
# as the seed's APISessionManager sends it), then me(). AccountUserProvider keeps the credential,
# through its delegate, and the User, through its userPersistenceHandler. 'auth show' and
# 'user me --cached' read them from the workspace, without a request.
auth login ada@example.com $password
auth show
expect contains "email:         ada@example.com"
user me --cached
expect contains "ada@example.com"

# A wrong password is refused by the API with its own code.
auth login ada@example.com wrong
expect fails "InvalidCredentials"

# When me() fails after a successful grant, the login says so: the credential is kept, and no
# user is stored until 'user me' fetches one.
net fault GET /users/me --status 500
auth login ada@example.com $password
expect fails "the credential is kept, but the user could not be fetched"
auth show
expect contains "user:          none stored"

## Expiry, refresh and replay
# UserAPI's me() goes through its APIServiceClient for User, and so through OAuth2Authorization
# with the stored bearer token; ModelFactory maps the answer into a User model object, which the
# userPersistenceHandler stores again.
user me
expect contains "identity:  User 6955b900-0000-4000-8000-000000000000"

# 'auth expire' makes the demo API expire the access token now. The next request gets 401;
# OAuth2Authorization queues it, OAuth2SessionManager spends the refresh token, the delegate
# stores the new credential, and the request is replayed. The caller sees only the user.
auth expire
trace on
user me
trace off

# Twenty requests at once after expiry: twenty 401s, one refresh, twenty replays, twenty 200s.
# (Without --summary, 'auth burst' prints each request's timeline.)
# The server holds the first twenty answers for 300ms, so that all twenty leave before any 401
# comes back; without it, on a busy machine the last requests may already carry the new token.
auth expire
net fault GET /users/me --delay 300ms --times 20
auth burst 20 /users/me --summary
expect contains "20 requests, 20 × 401, 1 refresh, 20 replays, 20 × 200 delivered"

## A failed refresh
# A refresh that fails: every queued caller gets its error, and the credential is kept, so the
# next request refreshes again and succeeds.
net fault POST /oauth/token --status 500 --delay 200ms
auth expire
auth burst 5 /users/me --summary
expect contains "5 failed: the token request was refused (HTTP 500"
user me
expect contains "ada@example.com"

## Logs and logging out
# The Loggers kept every request (tag API) and every 401, refresh and replay (tag OAuth2); tokens
# appear only redacted. Raise a tag's threshold and its Info lines are dropped.
log tags
log level API Warning
auth expire
user me
log show --tag API --limit 1
expect contains "[RESPONSE] 401 GET"
# A disabled tag keeps nothing until it is enabled again.
log disable OAuth2
auth expire
user me
log tags
log enable OAuth2

# How long the embedded API's new access tokens live (an hour unless changed; a standalone
# 'archsh serve' takes --token-lifetime).
auth lifetime 30s

# Logged out, there is nothing to send or refresh, and no user is stored.
auth logout
user me
expect fails "nobody is logged in"
user me --cached
expect fails "no user is stored"
auth refresh
expect fails "no refresh token"
