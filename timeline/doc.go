// Package timeline writes a plan's kept ranges as edit timelines that open in
// real editors: FCPXML, Premiere XML (xmeml), CMX 3600 EDL, OTIO and CSV.
// All five writers consume one frame list, so they always describe the same cut.
package timeline
