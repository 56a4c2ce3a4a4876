/// Whose part something is: one of the seed architectures', or archsh's own.
///
/// Factory products, command groups and exercises name theirs, so that a learner can always tell
/// what the originals have from what archsh needed to run them.
public enum Origin: String, CaseIterable, Sendable {
  /// Lickability's controllers (seeds 000 and 001).
  case lickability = "000/001"
  /// peredaniel's DataSourceController (seed 002).
  case dataSourceController = "002"
  /// banDedo's BDModules (seed 003).
  case bdModules = "003"
  /// MVC+C, the coordinators guide (seed 004).
  case mvcc = "004"
  /// archsh's own parts, which no seed has.
  case archsh = "archsh"

  /// The origin as people read it, such as `DataSourceController (002)`.
  public var label: String {
    switch self {
    case .lickability: return "Lickability (000/001)"
    case .dataSourceController: return "DataSourceController (002)"
    case .bdModules: return "BDModules (003)"
    case .mvcc: return "MVC+C (004)"
    case .archsh: return "archsh's own"
    }
  }
}
