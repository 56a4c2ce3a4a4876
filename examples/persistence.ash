# PersistenceController (Lickability, seed 000) keeps values in named stores, with PINCache's rules:
# byte counts, a byte limit trimmed by least recent access, an age limit, and TTL.
# Run it with `archsh --db :memory: --echo -f examples/persistence.ash`; the suite checks its output.

## Persist and retrieve
# A workspace starts with the seed's stores and PINCache's defaults: 50 MB and 30 days.
store stores

# Persist and retrieve. A value is text, JSON checked with --json, or a file's contents with @PATH.
store persist bookmarks home 'https://example.com'
store persist bookmarks work 'https://example.org/office'
store persist user profile '{"name": "Ada", "plan": "pro"}' --json
store retrieve bookmarks home
expect equals https://example.com

# Retrieving several keys keeps their order and skips the missing ones...
store retrieve bookmarks work nowhere home
# ...and fails only when every key is missing.
store retrieve bookmarks nowhere
expect fails "no key 'nowhere' in store 'bookmarks'"
store persist user broken '{"name": Ada}' --json
expect fails "not valid JSON"

## Access and byte limits
# Reads update the access time and count; byte counts are per store and per key.
store entries bookmarks
store bytes bookmarks
store bytes bookmarks home

# A byte limit: a write that goes over it trims the least recently accessed entries first.
store create thumbnails
store limits thumbnails --bytes 12
store persist thumbnails a aaaa
store persist thumbnails b bbbb
store persist thumbnails c cccc
store retrieve thumbnails a
store persist thumbnails d dddd
store keys thumbnails
expect equals "key\n---\na\nc\nd"

# A value larger than the limit is an error. PINCache drops it silently; archsh says so.
store persist thumbnails poster 'far too large for twelve bytes'
expect fails "larger than the byte limit"

# A store you created can be dropped, with its entries; the seed's stores cannot.
store drop thumbnails
store drop bookmarks
expect fails "one of the seed's stores"

## Age limits and TTL
# TTL: with an age limit and TTL mode on, an expired entry reads as missing, though it is still
# stored (and counted in the byte count) until a trim removes it.
store limits generalCache --age 1s --ttl on
store persist generalCache session abc
store retrieve generalCache session
sleep 1100ms
store retrieve generalCache session
expect fails "'session' in store 'generalCache' has expired (TTL)"
store trim generalCache --expired

## Tracing and the workspace
# Tracing shows each operation with its store, key, bytes and SQL statement.
trace on
store persist bookmarks blog 'https://example.net'
store retrieve bookmarks blog
trace off

# The workspace: its schema version, journal mode and entries per store.
db info
db check
