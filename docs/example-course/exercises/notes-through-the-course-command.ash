# A note kept through the course's command
#: seed 000/001
#: level 1
#: goal Keep the note "call the dentist" under the key todo in generalCache, with the course's command remember: do not use store persist.
#: forbid store persist
#: hint 'help remember' shows its usage: a key, then the note.
#: hint A note with spaces is one word when it is quoted.
#: hint remember todo "call the dentist"
#: why A course command runs its file as 'source' does: the command the learner types is remember, and the store persist inside it is the course's, not theirs.

## setup
store remove generalCache todo
expect fails

## check
store retrieve generalCache todo
expect contains "call the dentist"

## solution
remember todo "call the dentist"

## wrong
remember todo call

## cheat
store persist generalCache todo "call the dentist"
