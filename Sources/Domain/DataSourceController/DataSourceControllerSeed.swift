// Seed 002: peredaniel's DataSourceController (`Origin.dataSourceController`).
//
// DataSourceController with its sections, rows and the notifications its delegate gets; the
// cell data controllers registered per model type (Cells.swift); the row and section models; and
// DataSourceLibrary, the data sources a session keeps by name. Names follow the seed. The block
// storage that keeps a data source in the workspace is archsh's own, in Runtime/.
