// Seed 003: banDedo's BDModules (`Origin.bdModules`).
//
// The factories, ApplicationFactory and what it creates (Factory/); APISessionManager,
// APIServiceClient and their errors (Networking/); OAuth2: the session manager, the
// authorization that refreshes and replays, the user provider and UserAPI (Auth/); models, value
// objects and field mappers, which ModelFactory builds (Models/); the tagged Logger; the
// JSONSerializer JSONFactory hands out (Parsing/); Repository and its paging; and the API
// convention the linter checks. Names follow the seed.
