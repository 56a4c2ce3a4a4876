# Empty the Favourites list
#: seed 004
#: level 2
#: goal The Favourites tab lists iPad Air. Using the screens' rows (screen select) and presenter events, remove it from the favourites and leave the Favourites tab on its list, showing its empty state.
#: only screen select, event send
#: hint 'screen show' draws the visible screen and says under it what each row sends; the list's row does not remove anything.
#: hint The ♡ row is on the item's own screen. After it, look at what the Favourites tab shows: 'screen show favourites'.
#: hint screen select 0 (the item is pushed), screen select 1 (♡ off), then event send favourites backTapped.
#: why The provider never edits or navigates: a selected row becomes its presenter's event. mediaItemSelected makes the flow that owns the list push the item (Favourites, not Discover), and favouriteToggled only changes the 'bookmarks' store, so the coordinator does not navigate and you stay on the item until you go back; the list is read again when it is shown, and with no rows its delegate's empty background appears.

## setup
app start
app login ada@example.com
event send discover mediaItemSelected 7
event send discover favouriteToggled
event send discover backTapped
event send tabbar tabSelected favourites

## check
screen show favourites
expect contains "No favourites yet"

## solution
screen select 0
screen select 1
event send favourites backTapped

## wrong
screen select 0
screen select 1

## cheat
store remove bookmarks favourites
app relaunch
