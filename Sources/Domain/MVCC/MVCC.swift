// Seed 004: MVC+C, the coordinators guide (`Origin.mvcc`).
//
// AppDelegate and AppConfigurator, the flow coordinators (login, tab bar, discover, favourites,
// profile), the presenters that turn a screen's rows into events, the events themselves, and the
// navigation controllers the coordinators push and present on. Names follow the guide.
