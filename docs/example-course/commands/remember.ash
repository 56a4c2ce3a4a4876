#: summary keep a note in generalCache and read it back, as PersistenceController's persist and retrieve do
#: usage remember KEY TEXT
# $1 is the key and $2 the note; $# counts the words given.
store persist generalCache "$1" "$2"
store retrieve generalCache "$1"
