/** The /ui page's stylesheet (inline in the page: nothing is fetched from elsewhere). */
export const STYLE = `
* { box-sizing: border-box; }
body { font: 13px/1.4 system-ui, sans-serif; margin: 0; color: #1b1f24; background: #f6f8fa; }
header { position: sticky; top: 0; z-index: 5; display: flex; flex-wrap: wrap; align-items: center; gap: 8px 16px;
  padding: 8px 16px; background: #24292f; color: #f6f8fa; }
header h1 { font-size: 16px; margin: 0; font-weight: 600; }
header .summary { font-variant-numeric: tabular-nums; }
header .summary b { font-weight: 600; } header .summary .warn { color: #ffb77c; }
#clock { display: flex; align-items: center; gap: 6px; margin-left: auto; }
#clock button, #clock select { font: inherit; padding: 2px 8px; border-radius: 4px; border: 1px solid #57606a;
  background: #32383f; color: #f6f8fa; cursor: pointer; }
#clock button:hover { background: #444c56; } #clock button:disabled { opacity: .5; cursor: default; }
#vtime { font-variant-numeric: tabular-nums; font-weight: 600; min-width: 190px; text-align: right; }
#vtime .elapsed { font-weight: 400; color: #afb8c1; }
#status { width: 100%; color: #afb8c1; font-size: 11px; }
main { padding: 8px 16px 40px; }
h2 { font-size: 14px; margin: 16px 0 6px; display: flex; align-items: center; gap: 12px; flex-wrap: wrap; }
h2 .hint { font-weight: 400; color: #57606a; font-size: 12px; }
.seg { display: inline-flex; border: 1px solid #d0d7de; border-radius: 4px; overflow: hidden; font-weight: 400; }
.seg button { font: 12px system-ui, sans-serif; border: 0; padding: 2px 8px; background: #fff; cursor: pointer; }
.seg button.on { background: #0969da; color: #fff; }
input, select { font: 12px system-ui, sans-serif; padding: 2px 6px; border: 1px solid #d0d7de; border-radius: 4px; background: #fff; }
input.bad { border-color: #cf222e; background: #fff5f5; }
.zones { display: grid; grid-template-columns: repeat(auto-fill, minmax(min(100%, 380px), 1fr)); gap: 10px; }
.zone { background: #fff; border: 1px solid #d0d7de; border-radius: 6px; padding: 8px 10px; min-width: 0; }
.zone h3 { font-size: 13px; margin: 0 0 4px; display: flex; justify-content: space-between; gap: 8px; }
.zone h3 .counts { font-weight: 400; color: #57606a; }
.agg { width: 100%; border-collapse: collapse; font-size: 12px; font-variant-numeric: tabular-nums; margin-bottom: 6px; }
.agg th, .agg td { padding: 1px 4px; border: 0; border-bottom: 1px solid #eaeef2; background: none; text-align: right; white-space: nowrap; }
.agg th:first-child, .agg td:first-child { text-align: left; color: #57606a; }
.agg th { color: #57606a; font-weight: 400; }
.agg .pct { display: inline-block; width: 48px; height: 7px; background: #eaeef2; border-radius: 3px; overflow: hidden; vertical-align: middle; margin-right: 4px; }
.agg .pct i { display: block; height: 100%; background: #3a78c4; }
.frag { font-size: 11px; color: #57606a; margin: 2px 0 6px; }
canvas.heat { display: block; width: 100%; cursor: pointer; }
.legend { display: flex; flex-wrap: wrap; align-items: center; gap: 4px 12px; font-size: 11px; color: #57606a; margin: 6px 0 0; }
.legend .sw { display: inline-block; width: 11px; height: 11px; vertical-align: -2px; margin-right: 3px; border-radius: 2px; }
.legend .scale { display: inline-flex; gap: 1px; align-items: center; }
#tip { position: fixed; z-index: 10; pointer-events: none; background: #24292f; color: #f6f8fa; font-size: 12px;
  padding: 6px 8px; border-radius: 4px; max-width: 360px; display: none; box-shadow: 0 2px 8px rgba(0,0,0,.25); }
#tip b { font-weight: 600; } #tip .bad { color: #ff8182; }
.panel { background: #fff; border: 1px solid #d0d7de; border-radius: 6px; padding: 8px 10px; }
.cols { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 10px; align-items: start; }
@media (max-width: 1000px) { .cols { grid-template-columns: minmax(0, 1fr); } }
.groups { list-style: none; margin: 0; padding: 0; }
.groups li { padding: 4px 6px; border-bottom: 1px solid #eaeef2; cursor: pointer; display: flex; gap: 8px; }
.groups li:hover, .groups li.on { background: #ddf4ff; }
.groups .n { font-weight: 600; min-width: 64px; font-variant-numeric: tabular-nums; }
.groups .why { color: #cf222e; overflow-wrap: anywhere; } .groups .eg { color: #57606a; font-size: 11px; display: block; }
.charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(250px, 1fr)); gap: 10px; }
.chart { background: #fff; border: 1px solid #d0d7de; border-radius: 6px; padding: 6px 8px; }
.chart h4 { margin: 0; font-size: 12px; }
.chart .val { font-size: 11px; color: #57606a; font-variant-numeric: tabular-nums; min-height: 15px; }
.chart svg { display: block; width: 100%; height: 90px; }
.chart .keys { font-size: 11px; color: #57606a; display: flex; gap: 8px; flex-wrap: wrap; }
.tabs { display: flex; gap: 4px; } .tabs button { font: 600 13px system-ui, sans-serif; border: 1px solid #d0d7de;
  border-bottom: 0; border-radius: 6px 6px 0 0; padding: 4px 12px; background: #eaeef2; cursor: pointer; }
.tabs button.on { background: #fff; }
.filters { display: flex; flex-wrap: wrap; gap: 6px 10px; align-items: center; padding: 6px 0; font-size: 12px; }
.filters label { display: flex; gap: 4px; align-items: center; color: #57606a; }
.filters input.sel { width: 200px; }
.err { color: #cf222e; font-size: 12px; }
.vt { border: 1px solid #d0d7de; border-radius: 4px; background: #fff; font-size: 12px; font-variant-numeric: tabular-nums; }
.vt .head, .vt .row { display: grid; white-space: nowrap; }
.vt .head { background: #f6f8fa; border-bottom: 1px solid #d0d7de; font-weight: 600; position: sticky; top: 0; z-index: 1; }
.vt .head div { padding: 3px 6px; cursor: pointer; user-select: none; overflow: hidden; text-overflow: ellipsis; }
.vt .head div:hover { background: #eaeef2; } .vt .head .asc::after { content: ' ▲'; } .vt .head .desc::after { content: ' ▼'; }
.vt .body { overflow: auto; position: relative; }
.vt .row { position: absolute; left: 0; right: 0; border-bottom: 1px solid #f0f2f4; cursor: pointer; }
.vt .row:hover, .vt .row.on { background: #ddf4ff; }
.vt .row div { padding: 2px 6px; overflow: hidden; text-overflow: ellipsis; }
.vt .row .num { text-align: right; } .vt .row .fail { color: #cf222e; } .vt .row .ok { color: #1a7f37; }
.vt .row.chosen { background: #dafbe1; }
.vt .foot { padding: 3px 6px; color: #57606a; font-size: 11px; border-top: 1px solid #d0d7de; }
.detail h3 { margin: 0 0 6px; font-size: 14px; } .detail .bad { color: #cf222e; font-weight: 400; }
.kv { font-size: 12px; border-collapse: collapse; margin: 4px 0 8px; }
.kv td, .kv th { padding: 1px 6px; border-bottom: 1px solid #eaeef2; text-align: left; vertical-align: top; }
.chips span { display: inline-block; background: #eaeef2; border-radius: 10px; padding: 0 6px; margin: 0 4px 3px 0; font-size: 11px; }
.chips span.taint { background: #fff1e5; color: #953800; }
.muted { color: #57606a; } .fiterror { color: #cf222e; }
#explain-head { margin: 0 0 6px; }
.verdicts { font-size: 12px; border-collapse: collapse; margin-bottom: 6px; }
.verdicts td { padding: 1px 6px; border-bottom: 1px solid #eaeef2; } .verdicts td.num { text-align: right; font-variant-numeric: tabular-nums; }
`;
