/**
 * The simulation's public surface (the `kubesim/sim` subpath): scenarios, the discrete-event run on
 * a virtual clock, its text and HTML reports. docs/sim.md describes the scenario format.
 */
export { loadScenario, parseScenario } from './scenario.js';
export type { Scenario, NodePool, Action, TimelineEntry, Settings } from './scenario-types.js';
export { ScenarioError } from '../util/scenario-input.js';
export { Simulation, simulate } from './simulation.js';
export type { SimulationResult, RunOptions, EventRow } from './result.js';
export { demoScenario, type DemoOptions } from './demo.js';
export { formatSummary, formatEvents, renderReport } from './report.js';
export type { AutoscalerResult, AutoscalerDecision } from '../autoscaler/cluster-autoscaler.js';
export type { AutoscalerConfig, NodeGroupSpec } from '../autoscaler/config.js';
export {
  nodeUtilization,
  chooseOption,
  balanceScaleUp,
  checkEligibility,
  type ExpanderName,
  type ExpansionOption,
} from '../autoscaler/autoscaler-rules.js';
