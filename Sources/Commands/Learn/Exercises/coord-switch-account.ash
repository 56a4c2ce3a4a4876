# Switch account, keep your place
#: seed 004
#: level 2
#: goal ada@example.com is logged in and Discover shows MediaItem(7). Reach a state where bob@example.com is logged in and the Discover tab again shows Discover › MediaItem(7).
#: hint 'help app' lists how the app logs out and in; 'coord tree' shows which coordinators are alive after each step.
#: hint 'app login' only works from the login flow, so ada has to log out first. Then look at Discover's stack before you decide you are done.
#: hint app logout, then app login bob@example.com, then push the item again: event send discover mediaItemSelected 7.
#: why TabBarContainer never removes its Discover, Favourites and Profile coordinators, so a stack survives any number of tab switches, and people expect it to survive a logout too. But switching flows makes AppConfigurator drop the whole TabBarContainer with its children, and the login flow's mainFlow builds a new one whose flows start at their roots.

## setup
app start
app login ada@example.com
event send discover mediaItemSelected 7

## check
app state
expect contains "session:      bob@example.com"
coord stack discover
expect contains "DiscoverFlowCoordinator: Discover › MediaItem(7)"

## solution
app logout
app login bob@example.com
event send discover mediaItemSelected 7

## wrong
app logout
app login bob@example.com
