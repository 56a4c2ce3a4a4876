import Testing

@testable import Commands

@Suite("coord, event and screen commands")
struct CoordCommandTests {
  /// A running app in the main flow with Discover › MediaItem(3) and an alert.
  private func mainFlow() -> Harness {
    let harness = Harness()
    harness.script([
      "app start --session s", "event send discover mediaItemSelected 3", "app error server",
    ])
    harness.sink.stdout = ""
    harness.sink.combined = ""
    return harness
  }

  @Test("coord tree draws the same tree as Graphviz, with the visible coordinator in bold")
  func dot() {
    let harness = mainFlow()
    harness.script(["coord tree --format dot"])
    #expect(
      harness.sink.combined == """
        digraph coordinators {
          node [shape=box];
          app [label="AppConfigurator\\nflow: main, presents Alert(server)", penwidth=3];
          tabbar [label="TabBarContainer\\nTabBar, tab: discover"];
          discover [label="DiscoverFlowCoordinator\\nDiscover › MediaItem(3)"];
          favourites [label="FavouritesFlowCoordinator\\nFavourites"];
          profile [label="ProfileFlowCoordinator\\nProfile"];
          app -> tabbar;
          tabbar -> discover;
          tabbar -> favourites;
          tabbar -> profile;
        }

        """)
  }

  @Test(
    "in JSON a stack is its coordinator's fields and rows with stable keys, the alert among them")
  func json() {
    let harness = mainFlow()
    harness.script(["output json", "coord stack app", "coord stack discover"])
    #expect(
      harness.sink.combined == """
        {}
        [{"coordinator":"AppConfigurator","name":"app","stack":"(empty)"},[{"position":null,"screen":"Alert(server)","role":"presented","visible":true}]]
        [{"coordinator":"DiscoverFlowCoordinator","name":"discover","stack":"Discover › MediaItem(3)"},[{"position":0,"screen":"Discover","role":"pushed","visible":false},{"position":1,"screen":"MediaItem(3)","role":"top","visible":false}]]

        """)
  }

  @Test("in JSON the tree is each coordinator's fields, not its drawn label")
  func treeJSON() {
    let harness = mainFlow()
    harness.script(["output json", "coord tree"])
    #expect(
      harness.sink.combined == """
        {}
        {"name":"app","type":"AppConfigurator","flow":"main","screen":null,"stack":[],"tab":null,"presents":"Alert(server)","visible":true,"children":[{"name":"tabbar","type":"TabBarContainer","flow":null,"screen":"TabBar","stack":["TabBar"],"tab":"discover","presents":null,"visible":false,"children":[{"name":"discover","type":"DiscoverFlowCoordinator","flow":null,"screen":"MediaItem(3)","stack":["Discover","MediaItem(3)"],"tab":null,"presents":null,"visible":false,"children":[]},{"name":"favourites","type":"FavouritesFlowCoordinator","flow":null,"screen":"Favourites","stack":["Favourites"],"tab":null,"presents":null,"visible":false,"children":[]},{"name":"profile","type":"ProfileFlowCoordinator","flow":null,"screen":"Profile","stack":["Profile"],"tab":null,"presents":null,"visible":false,"children":[]}]}]}

        """)
  }

  @Test("in JSON an event is its component, action and subject, with its line")
  func eventsJSON() {
    let harness = mainFlow()
    harness.script([
      "output json", "event send app dismissTapped", "event send discover backTapped",
    ])
    #expect(
      harness.sink.combined == """
        {}
        {"events":[{"component":"Presenter(Alert)","action":"sends","subject":"dismissTapped","text":"sends dismissTapped"},{"component":"AppConfigurator","action":"dismisses","subject":"Alert(server)","text":"dismisses Alert(server)"}]}
        {"events":[{"component":"Presenter(MediaItem)","action":"sends","subject":"backTapped","text":"sends backTapped"},{"component":"DiscoverFlowCoordinator","action":"pops","subject":"MediaItem(3)","text":"pops MediaItem(3)"},{"component":"DiscoverFlowCoordinator","action":"stack","subject":"Discover","text":"stack: Discover"}]}

        """)
  }

  @Test("the alert blocks other coordinators; once dismissed, the stack goes on")
  func alertBlocks() {
    // A script stops at the first error, so the lines after it never run
    let harness = mainFlow()
    harness.script([
      "event send discover backTapped", "screen select 1", "event send discover backTapped",
      "event send app dismissTapped",
    ])
    #expect(
      harness.sink.combined == """
        test.ash:1:12: error: Alert(server) is presented over every other screen (dismiss it first: event send app dismissTapped)

        """)
    let next = Harness()
    next.script([
      "app start --session s", "event send discover mediaItemSelected 3", "app error server",
      "screen select 1", "event send discover backTapped", "coord stack discover",
    ])
    #expect(
      next.sink.combined.hasSuffix(
        """
        ~ Presenter(Alert) sends dismissTapped
        ~ AppConfigurator dismisses Alert(server)
        ~ Presenter(MediaItem) sends backTapped
        ~ DiscoverFlowCoordinator pops MediaItem(3)
        ~ DiscoverFlowCoordinator stack: Discover
        DiscoverFlowCoordinator: Discover
        position  screen    role  visible
        --------  --------  ----  -------
               0  Discover  top   yes

        """))
  }

  @Test("errors name the coordinator and suggest; an unknown row says how many there are")
  func errors() {
    var settings = InterpreterSettings()
    settings.keepGoing = true
    let harness = Harness(settings: settings)
    harness.script([
      "coord tree", "app start", "coord stack discovr", "event send discover headerTapped",
      "screen select 9", "app logout", "app start",
    ])
    #expect(
      harness.sink.stderr == """
        test.ash:1:1: error: the app is not running (start it with 'app start')
        test.ash:3:13: error: no coordinator 'discovr' (did you mean 'discover'?)
        test.ash:4:12: error: coordinator 'discover' is not running: the app is in the login flow (log in first: app login EMAIL)
        test.ash:5:15: error: Login has no row 9; it has 2 rows ('screen show' lists the rows to select)
        test.ash:6:1: error: nobody is logged in: the app is in the login flow (log in with 'app login EMAIL')
        test.ash:7:1: error: the app is already running, in the login flow ('app relaunch' launches it again from the saved state; 'app reset' clears it)

        """)
  }
}
