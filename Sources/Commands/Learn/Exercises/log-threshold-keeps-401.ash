# Keep the 401, drop the chatter
#: seed 003
#: level 2
#: goal The log starts empty. Make one 'user me' sent with an expired access token ('auth expire') leave exactly one line under the tag API (its 401), while OAuth2 keeps its usual two lines about the refresh. Leave OAuth2's settings as they are.
#: hint 'help log' lists the levels and what a tag's threshold does; 'log tags' shows each tag's threshold and how many lines it kept. 'log clear' starts over.
#: hint Every request and successful response is logged at Info; a failed response is logged one level higher. Which threshold drops the first and keeps the second? (It is per tag.)
#: hint log level API Warning, then auth expire, then user me.
#: why Each Logger has its own tag, switch and threshold, and BDModules logs a failed HTTP request at Warning, not Error: a threshold of Error silences the 401 as well, and a threshold on API does nothing to OAuth2's lines. A line below the threshold is dropped when it is written, never kept for later.

## setup
set password lovelace --secret
auth login ada@example.com $password
log clear

## check
log tags
expect contains "API                    yes      Warning        1  "
expect contains "OAuth2                 yes      Info           2  "

## solution
log level API Warning
auth expire
user me

## wrong
log level API Error
auth expire
user me
