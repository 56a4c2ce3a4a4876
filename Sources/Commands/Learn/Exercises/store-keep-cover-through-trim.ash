# Keep the oldest entry through a trim
#: seed 000/001
#: level 1
#: goal The store thumbs is full (40 of 40 bytes). Persist page3 with the value page-three so that thumbs ends up holding both page3 and cover, its oldest entry. Do not change the store's limits, and do not remove entries yourself ('store stores' shows the limits).
#: forbid store limits, store remove, store drop
#: hint 'help store persist' says which entries a write that goes over the byte limit trims first.
#: hint The trim after a write goes by last access, not by creation, and 'store trim --to-bytes' removes the largest entries first.
#: hint Read cover with 'store retrieve thumbs cover' before you persist page3: the read makes it the most recently used entry.
#: why PINCache trims by access date after a write, and 'store retrieve' updates that date, so reading cover protects it even though it was written first. Making room with 'store trim --to-bytes' instead removes the largest entry first, which is cover. ('store keys' and 'store entries' are not reads.)

## setup
store create thumbs
store limits thumbs --bytes 40
store persist thumbs cover cover-image-20-bytes
store persist thumbs page1 page-one-1
store persist thumbs page2 page-two-2

## check
store keys thumbs
expect contains cover
expect contains page3

## solution
store retrieve thumbs cover
store persist thumbs page3 page-three

## wrong
store trim thumbs --to-bytes 30
store persist thumbs page3 page-three

## cheat
store limits thumbs --bytes 1MB
store persist thumbs page3 page-three
