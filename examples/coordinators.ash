# MVC+C (filmsstorm's guide, seed 004): coordinators keep child coordinators and a navigation stack
# of screens, presenters send per-screen events named for what happened, and controllers are built
# with their presenter and never navigate. There is no UIKit here, so the navigation that UIKit
# would show is drawn as text. Run it with `archsh --db :memory: --echo -f examples/coordinators.ash`.

## Launch and login
# 1. A launch without a session: AppConfigurator finds nothing in 'user' and chooses login.
app start
screen show
expect contains "screen select 1: signUpTapped"

# A bad email fails in the presenter, before the coordinator hears of anything.
app login ada
expect fails "is not an email address"

# 2. Logging in: the presenter stores a session, LoginFlowCoordinator clears its stack and sends
# mainFlow up, and the tab bar container appends and starts the three tab flows. archsh removes
# the login coordinator; the guide would keep it.
app login ada@example.com
coord tree
app state

## Discover and the tabs
# 3. Discover lists the catalog's media items through its table-view provider. Selecting a row is
# the presenter's mediaItemSelected(id); the coordinator pushes the item.
screen show
screen select 1
coord stack discover
event list discover
# Only the screen on top can send, and only its own events.
event send discover mediaItemSelected x
expect fails "is not a product id"
event send discover signUpTapped
expect fails "MediaItem(2) cannot send 'signUpTapped'"
# With tracing on, each event prints its path: presenter, coordinator, push, resulting stack.
trace on
event send discover mediaItemSelected 5
event send discover backTapped
trace export --format mermaid
trace off
event send discover headerTapped
coord tree

# Other tabs keep their own stacks.
event send tabbar tabSelected profile
event send profile settingsTapped
coord tree --format mermaid

event send profile backTapped
event send tabbar tabSelected discover

## App errors
# An app error other than unauthorized presents an alert over every screen.
event send discover failed network
screen show
event send discover mediaItemSelected 1
expect fails "Alert(network) is presented over every other screen"
screen select 1

# 4. An authorization error from a flow travels up to AppConfigurator, which removes the session
# and routes to login.
event send discover failed unauthorized
coord tree
app state

## Saved state
# 5. The state is saved in the workspace after each change. Log in again, move around, and
# relaunch: the coordinators in memory are dropped, the session chooses the flow, and the saved
# stacks come back (a new archsh process on the same workspace does the same).
app login ada@example.com
event send discover mediaItemSelected 3
event send tabbar tabSelected favourites
app relaunch
coord stack discover
expect contains "MediaItem(3)"

# app reset clears the saved state and keeps the session, so the next start is the main flow.
app reset
app start
app logout
