# Launch from a clean slate
#: seed 004
#: level 1
#: goal ada is logged in. Clear the app's saved state and launch it again so that it starts on the login flow with no session, without 'app logout' (a user who reinstalls the app never pressed a logout button).
#: forbid app logout
#: hint 'help app' lists how the app is stopped, cleared and started; read 'help app reset' to the end.
#: hint AppConfigurator chooses the flow at launch from the session id in the 'user' store ('store keys user'), not from the saved coordinators.
#: hint app reset, then store remove user sessionID, then app start.
#: why Clearing the app's state does not log it out: AppConfigurator reads the session id from the keychain, and on iOS keychain items can outlive even deleting the app, so a reinstall still opens on the main flow. archsh keeps it in the 'user' store, which 'app reset' keeps; only removing the session id chooses the login flow.

## setup
app start
app login ada@example.com
event send discover mediaItemSelected 4

## check
app state
expect contains "session:      none"
expect contains "visible:      Login (login)"

## solution
app reset
store remove user sessionID
app start

## wrong
app reset
app start

## cheat
app logout
app reset
app start
