# A 401 deep inside a tab
#: seed 004
#: level 2
#: goal MediaItem(3) is open in Discover, and the API now answers 401 Unauthorized to ada's requests. Have that screen's presenter report the failure so that the app ends on the login screen with no session stored (no 'app' commands).
#: forbid app
#: hint 'event list discover' shows the MediaItem presenter's events; one of them carries an error kind.
#: hint Not every error kind goes to the same place: try to predict where each one ends before you send it ('help app error').
#: hint A 401 is the unauthorized kind: event send discover failed unauthorized.
#: why People expect a failing screen to handle its own error, or any error to send the user back to log in. Here the flow coordinators only forward appError up (Discover, then TabBarContainer) to AppConfigurator: unauthorized removes the session and swaps the tab bar for the login flow, while network, server and notFound present an alert over every screen.

## setup
app start
app login ada@example.com
event send discover mediaItemSelected 3

## check
app state
expect contains "session:      none"
expect contains "visible:      Login (login)"

## solution
event send discover failed unauthorized

## wrong
event send discover failed network

## cheat
app logout
