# BDModules (seed 003), the composition root: ApplicationFactory creates the other factories, and
# they build every object the shell drives. A singleton (a lazy var in the seed) is built once
# and shared; a prototype (a method) is built anew on every request. The graph is generated from
# the declarations the factories build from. Run it with
# `archsh --db :memory: --echo -f examples/factories.ash`.

# The whole graph: who builds what, and who is injected into whom.
factory graph

# Singletons: OAuth2Authorization, AccountUserProvider, the Logger and the log book are shared,
# so asking twice gives the same identity.
factory get oAuth2Authorization
factory get oAuth2Authorization
expect contains "the shared instance"
factory get accountUserProvider

# Prototypes: APISessionManager and OAuth2SessionManager are new on every request.
factory get apiSessionManager
factory get apiSessionManager
expect contains "a new instance"
factory get oAuth2SessionManager

# A product built from an input cannot be asked for without it.
factory get repository
expect fails "is built from"

# With tracing on, a first construction shows what it was injected with.
trace on
factory get repositoryStore
trace off

factory list
