# BDModules (seed 003), Repository: a paged collection, fetched page by page through
# APISessionManager and OAuth2Authorization, mapped by ModelFactory, and kept in the workspace,
# de-duplicated by identity. Run it with `archsh --db :memory: --echo -f examples/repository.ash`.

set password lovelace --secret
auth login ada@example.com $password
# The demo user has 12 favourite locations (the embedded API computes them, up to millions).
net locations 12

## Standard paging
# Standard paging: each fetch sends offset = the number of elements held.
repo new favourites /users/me/locations --mode standard --limit 5
# Traced: Repository → OAuth2Authorization → APISessionManager → ModelFactory → the store.
trace on
repo fetch favourites
trace off
repo fetch favourites
expect contains "sent limit=5&offset=5: +5 new (0 duplicates)"
# An expired token in the middle of paging is refreshed and the page replayed, unseen.
auth expire
repo fetch favourites
expect contains "at_end:          yes"
repo show favourites --from 8 --count 4

## Realtime paging
# Realtime Ascending pages with since_id, from the last element's paging id, and picks up
# locations inserted since.
repo new timeline /users/me/locations --mode realtime --order asc --limit 5
repo fetch timeline --all
net locations --add 2
repo fetch timeline
expect contains "sent limit=5&since_id=12&order=asc: +2 new (0 duplicates)"

# Realtime Descending pages with max_id, from the oldest element held.
repo new newest /users/me/locations --mode realtime --order desc --limit 4
repo fetch newest
repo fetch newest
expect contains "sent limit=4&max_id=11&order=desc"

# Standard paging over a list that grows at the top: the offsets shift, and the duplicates
# they bring back are dropped by identity.
repo new shifting /users/me/locations --order desc --limit 5
repo fetch shifting
net locations --add 2
repo fetch shifting
expect contains "+3 new (2 duplicates)"

## Failures
# A failing server keeps what was fetched, and says so.
net fault GET /users/me/locations --status 503
repo fetch shifting
expect fails "HTTP 503"
repo state shifting
expect contains "state:           Error"
repo list

# A page in the original backend's shape: ids that are not UUIDs, string paging ids, and an info
# without offset whose count is not the page's size. The original accepts it, and so does archsh;
# the cursor is the last paging id, kept as the string it came as. 'api lint' flags the page.
net fault GET /users/me/locations --status 200 --body @files/page.json
repo new original /users/me/locations --mode realtime --order asc --limit 2
repo fetch original
expect contains "+2 new (0 duplicates)"
repo state original
expect contains "last_paging_id:  abd"
repo show original
api lint @files/page.json
expect fails "6 findings"

# A page that cannot be read fails the fetch with a line that says where; nothing is lost.
net fault GET /users/me/locations --status 200 --body '{"code":"OK","data":[]}'
repo fetch favourites
expect fails "info.total: the collection has no 'info'"
net fault GET /users/me/locations --status 200 --body '{"code":"OK","data":[{"type":"Location"}],"info":{"total":13}}'
repo fetch favourites
expect fails "data[0]: a model object needs an 'id'"
repo state favourites

# The server failing in the middle of 'repo fetch --all': the pages fetched so far stay stored,
# and the next fetch goes on from them.
repo new paged /users/me/locations --limit 3
net fault GET /users/me/locations --status 500 --after 2
repo fetch paged --all
expect fails "HTTP 500"
repo state paged
expect contains "count:           6"
repo fetch paged --all
expect contains "at_end:          yes"

## Models and mistakes
# Trips nest their User (the profile) and two Locations; a repository keeps them too.
repo new trips /users/me/trips --limit 3
repo fetch trips
repo show trips --count 2

# Mistakes are one line each.
repo new broken /users/me/locations --mode realtime
expect fails "needs an order"
repo fetch favourits
expect fails "did you mean 'favourites'?"

# Repositories live in the workspace, so a later session goes on from the same cursors.
repo reset timeline
repo drop newest
repo list
