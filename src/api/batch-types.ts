/**
 * Types of the kinds the batch, policy and autoscaling controllers act on (batch/v1 Job, policy/v1
 * PodDisruptionBudget). Field names are Kubernetes' own (k8s.io/api batch/v1, policy/v1), so manifests load unchanged;
 * only the fields kubesim reads are typed, the rest round-trip through the index signature.
 */
import type { KubeObject, LabelSelector, PodTemplateSpec } from './types.js';

/** batch/v1 JobCondition; also the shape of PDB and HPA conditions */
export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
  lastProbeTime?: string;
  lastTransitionTime?: string;
  observedGeneration?: number;
}

export interface JobSpec {
  parallelism?: number;
  completions?: number;
  activeDeadlineSeconds?: number;
  backoffLimit?: number;
  selector?: LabelSelector;
  manualSelector?: boolean;
  template: PodTemplateSpec;
  ttlSecondsAfterFinished?: number;
  completionMode?: 'NonIndexed' | 'Indexed';
  suspend?: boolean;
  [field: string]: unknown;
}

export interface JobStatus {
  conditions?: Condition[];
  startTime?: string;
  completionTime?: string;
  active?: number;
  succeeded?: number;
  failed?: number;
  terminating?: number;
  completedIndexes?: string;
  ready?: number;
  [field: string]: unknown;
}

export interface Job extends KubeObject {
  kind: 'Job';
  spec: JobSpec;
  status?: JobStatus;
}

export interface PodDisruptionBudget extends KubeObject {
  kind: 'PodDisruptionBudget';
  spec: {
    minAvailable?: number | string;
    maxUnavailable?: number | string;
    selector?: LabelSelector;
    unhealthyPodEvictionPolicy?: 'IfHealthyBudget' | 'AlwaysAllow';
  };
  status?: {
    observedGeneration?: number;
    disruptedPods?: Record<string, string>;
    disruptionsAllowed: number;
    currentHealthy: number;
    desiredHealthy: number;
    expectedPods: number;
    conditions?: Condition[];
  };
}
