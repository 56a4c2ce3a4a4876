# Notes: a course's own command over PersistenceController (Lickability, seed 000), kept in generalCache.
# Run it with `archsh --course docs/example-course --tour notes`.

## A command the course adds
# `remember` is commands/remember.ash: its words are the file's $1 and $2.
remember groceries "milk, bread"
expect contains "milk, bread"
# It is a command like the others: its help comes from its #: lines.
help remember
expect contains "usage: remember KEY TEXT"

## What it stored
# PersistenceController keeps the note under its key, with its size and dates.
store keys generalCache
expect contains groceries
# A second note under the same key replaces the first.
remember groceries "eggs"
store retrieve generalCache groceries
expect contains eggs
