# Every UserAPI brings its own OAuth2SessionManager
#: seed 003
#: level 2
#: goal Without logging in again and without asking the factory for anything by name, reach a session that has made exactly 3 UserAPIs and exactly 3 OAuth2SessionManagers (the 'built' column of 'factory list').
#: forbid auth login, factory get
#: hint 'help factory' tells prototypes from singletons; 'factory list' shows what this session has made so far (the login already made one UserAPI and one OAuth2SessionManager).
#: hint Which everyday command asks APIFactory for a new UserAPI? Look at what a UserAPI is injected with in 'factory graph'.
#: hint Each 'user me' makes a new UserAPI, and with it a new OAuth2SessionManager that me() never uses. Anything that refreshes a token makes an OAuth2SessionManager without a UserAPI, so keep the token fresh.
#: why userAPI() and oAuth2SessionManager() are methods of APIFactory, so prototypes: every UserAPI gets an OAuth2SessionManager of its own (it needs one only for login), even when only me() runs. Only the lazy vars (OAuth2Authorization, AccountUserProvider, the Logger) are shared. The seed's README calls it "the Singleton Oauth2SessionManager" in one place and gives it Prototype scope in another; its APIFactory makes it a method.

## setup
set password lovelace --secret
auth login ada@example.com $password

## check
factory graph
expect contains "userAPI: UserAPI (prototype, made 3 times)"
expect contains "oAuth2SessionManager: OAuth2SessionManager (prototype, made 3 times)"

## solution
user me
user me

## wrong
auth refresh
auth refresh

## cheat
auth login ada@example.com $password
auth login ada@example.com $password
