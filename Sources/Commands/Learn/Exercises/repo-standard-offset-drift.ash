# Offset paging never reaches the new top
#: seed 003
#: level 3
#: goal The repository 'feed' (Standard paging, newest first) was paging when 3 new favourites arrived at the top, and now it is stuck short of its total. Get 'feed' to its end: 'repo state feed' must say at_end yes.
#: hint 'repo state feed' shows what the next fetch will send, and 'help repo' says how Standard paging picks its offset and when a repository is at its end.
#: hint The offset is the number of elements held, and the 3 newest locations sit at offsets 0 to 2; a Standard fetch never goes back there, however often you repeat it, and fetch does not stop at the end either.
#: hint Forget the elements and cursors but keep the definition ('repo reset feed'), then page through again with 'repo fetch feed --all'.
#: why Standard paging sends offset = elements.count, so rows inserted at the top shift everything down: later pages bring back duplicates (dropped by identity) and the new rows are never asked for, while atEnd is just total == count, so it never becomes true. Realtime paging (since_id/max_id from the held paging ids) is BDModules' answer to a list that grows at the top.

## setup
set password lovelace --secret
auth login ada@example.com $password
net locations 12
repo new feed /users/me/locations --order desc --limit 5
repo fetch feed
net locations --add 3
repo fetch feed --all

## check
repo state feed
expect contains "at_end:          yes"

## solution
repo reset feed
repo fetch feed --all

## wrong
repo fetch feed --all
repo fetch feed
