# BDModules (seed 003), the composition root: ApplicationFactory creates the other factories, and
# they build every object the shell drives. A singleton (a lazy var in the seed) is built once
# and shared; a prototype (a method) is built anew on every request. Run it with
# `archsh --db :memory: --echo -f examples/factories.ash`.

## The graph
# Who builds what, and who is injected into whom. Each product is one typed declaration, and the
# type shown is the Swift type's own name. The arrows are declared nowhere: archsh builds every
# product once in a scratch composition root, and the factories record what each builder asked
# them for. This session has built nothing yet but the tracer, which the shell hands the root.
# 'factory graph' alone draws every product; with a name, the part around it: what it is built
# from, all the way down, and what it is injected into.
factory graph oAuth2Authorization

## Singletons and prototypes
# The original's singletons are OAuth2Authorization, AccountUserProvider and the Logger (lazy vars
# in BDModules): shared, so asking twice gives the same identity. archsh adds singletons of its
# own (the workspace, the tracer, the embedded API, the log book, the stores), which 'factory list'
# marks as archsh's own in its origin column.
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

## Injection, traced
# With tracing on, a first construction shows what it was injected with.
trace on
factory get repositoryStore
trace off

# The app asks the factories too: each coordinator gets a NavigationController, and each screen a
# TableViewProvider, with a new DataSourceController and its translator, every time it draws.
app start
screen show

## What this session built
# The list counts what this session has built: 1 for each singleton built, and one for each
# instance of a prototype. Its origin column tells the seeds' products from archsh's own. With
# --built it shows only what was built ('factory list' alone lists every product).
factory list --built
expect contains "navigationController"
expect contains "archsh's own"

# The graph marks the same: a singleton 'built', a prototype how many times it was made. What this
# session's own builds asked for is drawn too: the shell's start of the embedded API read the
# workspace (where it keeps its port), so embeddedAPI now depends on it.
factory graph --built
