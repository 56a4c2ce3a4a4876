# Presenter events (MVC+C, seed 004): each screen's presenter sends events named for what happened, and the coordinator that owns the screen decides where to go.
# Step through it with `archsh --step --tour events`; the suite checks its output.

## A screen and its events
# The app starts on the login flow; logging in switches to the main flow, with Discover on top.
app start
app login ada@example.com
# Each presenter has its own event enum; `event list` shows the ones Discover's screen can send.
event list discover

## Push and pop
# mediaItemSelected(id) makes DiscoverFlowCoordinator push the item's screen.
event send discover mediaItemSelected 3
coord stack discover
# backTapped, from the item's screen, pops it.
event send discover backTapped
coord stack discover

## Only the visible screen can send
# Once an item is pushed, only its screen's presenter can send: Discover's events are refused.
event send discover mediaItemSelected 2
event send discover signUpTapped
expect fails "cannot send 'signUpTapped'"
# headerTapped, from the item's screen, makes the coordinator pop back to its root.
event send discover headerTapped

## Selection through the provider
# The table-view provider turns a selected row into the presenter's event.
screen select 1
coord tree
