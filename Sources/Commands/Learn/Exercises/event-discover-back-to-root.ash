# Back to Discover's root screen
#: seed 004
#: level 1
#: goal The Discover tab shows MediaItem(7), pushed over MediaItem(2). Bring the Discover tab back to its root screen, Discover, using presenter events only: only 'event send' and 'screen select' may change the app, and the app keeps running all along.
#: only event send, screen select
#: never the app not running
#: hint 'event list discover' shows what the screen on top of Discover's stack can send; 'help event send' shows how to send it.
#: hint Tapping the Discover tab again is a TabBar event, handled by TabBarContainer, not by DiscoverFlowCoordinator: watch what it does to the stack ('coord stack discover').
#: hint MediaItem's presenter can send headerTapped, and DiscoverFlowCoordinator answers it by popping to its root: event send discover headerTapped.
#: why In UIKit, tapping the selected tab pops its navigation controller to the root, so people expect the same here. In MVC+C only the coordinator that owns a screen navigates, on its presenter's events: TabBarContainer just selects the tab, backTapped pops one screen, and headerTapped makes DiscoverFlowCoordinator pop to its root.

## setup
app start --session s3cr3t
event send discover mediaItemSelected 2
event send discover mediaItemSelected 7

## check
coord tree
expect contains "DiscoverFlowCoordinator [discover]  Discover  ← visible"

## solution
event send discover headerTapped

## wrong
event send tabbar tabSelected discover

## cheat
app reset
app start --session s3cr3t

## never
app state
expect contains "running: no"
