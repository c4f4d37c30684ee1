/**
 * The simulation's public surface (the `kubesim/sim` subpath): scenarios, the discrete-event run on
 * a virtual clock, its text and HTML reports. docs/sim.md describes the scenario format.
 */
export {
  loadScenario,
  parseScenario,
  type Scenario,
  type NodePool,
  type Action,
  type TimelineEntry,
  type Settings,
} from './scenario.js';
export { ScenarioError } from '../util/scenario-input.js';
export { Simulation, simulate, type SimulationResult, type RunOptions, type EventRow } from './simulation.js';
export { demoScenario, type DemoOptions } from './demo.js';
export { formatSummary, formatEvents, renderReport } from './report.js';
export type {
  AutoscalerConfig,
  AutoscalerResult,
  AutoscalerDecision,
  NodeGroupSpec,
} from '../autoscaler/cluster-autoscaler.js';
export {
  nodeUtilization,
  chooseOption,
  balanceScaleUp,
  checkEligibility,
  type ExpanderName,
  type ExpansionOption,
} from '../autoscaler/autoscaler-rules.js';
