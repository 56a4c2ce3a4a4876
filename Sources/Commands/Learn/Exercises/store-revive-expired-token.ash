# Bring back an expired entry in TTL mode
#: seed 000/001
#: level 2
#: goal generalCache is in TTL mode, and its entry token (value abc) has passed its age limit, so it reads as missing. Make 'store retrieve generalCache token' print abc again for at least the next hour, with TTL mode still on.
#: hint 'help store limits' and 'help store persist': where does an age limit come from, and what is it counted from?
#: hint token was persisted with its own --age 1s ('store entries' hides expired entries while TTL is on), and an entry's own age limit wins over the store's. The age counts from the entry's creation.
#: hint Only a new write starts the clock again: persist token again, with abc and an age of an hour or more.
#: why An age limit counts from the entry's creation, as PINCache's does: reads never extend it, and token's own limit of 1s takes precedence over the store's limit, so raising the store's age limit changes nothing for it. In TTL mode the expired entry is still stored but reads as missing; only persisting it again resets its creation time.

## setup
store limits generalCache --ttl on
store persist generalCache token abc --age 1s
sleep 1200ms

## check
store retrieve generalCache token
expect equals abc
store limits generalCache
expect contains "ttl:        yes"

## solution
store persist generalCache token abc --age 1h

## wrong
store limits generalCache --age 1h
