# The cache key is the whole URL
#: seed 000/001
#: level 1
#: goal Product 42 was opened from a link with ?ref=home and is already in productCache, yet 'product show 42' says it is not cached. Make 'product show 42' show it.
#: hint 'help product' says what key ProductUpdater persists a product under. Compare it with 'store keys productCache'.
#: hint The key is url.absoluteString, query included, and product(from:) looks up exactly the URL it is given.
#: hint Fetch it once more under the plain URL: 'product update 42'.
#: why ProductUpdater persists under url.absoluteString and product(from:) reads with the same string, so /products/42?ref=home, /products/42/ and /products/42 are three different cache entries for one product. Refreshing the ?ref=home copy only refreshes that key.

## setup
product update '/products/42?ref=home'

## check
product show 42
expect contains "iPad model 42"

## solution
product update 42

## wrong
product update '/products/42?ref=home'
product show '/products/42?ref=home'
