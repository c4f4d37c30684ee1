/**
 * Types of the kinds the batch, policy and autoscaling controllers act on (batch/v1 Job and CronJob,
 * policy/v1 PodDisruptionBudget, autoscaling/v2 HorizontalPodAutoscaler). Field names are
 * Kubernetes' own (k8s.io/api batch/v1, policy/v1, autoscaling/v2), so manifests load unchanged;
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

export interface CronJobSpec {
  schedule: string;
  timeZone?: string;
  startingDeadlineSeconds?: number;
  concurrencyPolicy?: 'Allow' | 'Forbid' | 'Replace';
  suspend?: boolean;
  jobTemplate: { metadata?: KubeObject['metadata']; spec: JobSpec };
  successfulJobsHistoryLimit?: number;
  failedJobsHistoryLimit?: number;
}

export interface ObjectReference {
  apiVersion?: string;
  kind?: string;
  name?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
}

export interface CronJobStatus {
  active?: ObjectReference[];
  lastScheduleTime?: string;
  lastSuccessfulTime?: string;
}

export interface CronJob extends KubeObject {
  kind: 'CronJob';
  spec: CronJobSpec;
  status?: CronJobStatus;
}

export interface CrossVersionObjectReference {
  kind: string;
  name: string;
  apiVersion?: string;
}

export interface MetricTarget {
  type: 'Utilization' | 'Value' | 'AverageValue';
  value?: string | number;
  averageValue?: string | number;
  averageUtilization?: number;
}

export interface MetricSpec {
  type: 'Resource' | 'ContainerResource' | 'Pods' | 'Object' | 'External';
  resource?: { name: string; target: MetricTarget };
  containerResource?: { name: string; container: string; target: MetricTarget };
  pods?: { metric: { name: string }; target: MetricTarget };
  object?: { metric: { name: string }; describedObject: CrossVersionObjectReference; target: MetricTarget };
  external?: { metric: { name: string }; target: MetricTarget };
}

export interface HPAScalingPolicy {
  type: 'Pods' | 'Percent';
  value: number;
  periodSeconds: number;
}

export interface HPAScalingRules {
  stabilizationWindowSeconds?: number;
  selectPolicy?: 'Max' | 'Min' | 'Disabled';
  policies?: HPAScalingPolicy[];
  tolerance?: string | number;
}

export interface HorizontalPodAutoscaler extends KubeObject {
  kind: 'HorizontalPodAutoscaler';
  spec: {
    scaleTargetRef: CrossVersionObjectReference;
    minReplicas?: number;
    maxReplicas: number;
    metrics?: MetricSpec[];
    behavior?: { scaleUp?: HPAScalingRules; scaleDown?: HPAScalingRules };
  };
  status?: {
    observedGeneration?: number;
    lastScaleTime?: string;
    currentReplicas: number;
    desiredReplicas: number;
    currentMetrics?: unknown[];
    conditions?: Condition[];
  };
}
