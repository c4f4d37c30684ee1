/**
 * apps/v1 Deployment and ReplicaSet (upstream: pkg/apis/apps/validation ValidateDeploymentSpec,
 * ValidateReplicaSetSpec, ValidatePodTemplateSpecForReplicaSet, ValidateDeploymentStrategy).
 */
import { deepEqual } from './deep-equal.js';
import { type FieldError, forbiddenField, invalidValue, notSupported, required } from './field.js';
import type { ResourceInfo } from './registry.js';
import { type KindRules, isInt, isObj, type Obj } from './validation-common.js';
import { validateMeta } from './validation-meta.js';
import { validatePodSpec } from './validation-pod.js';
import { labelSelectorAsSelector, type Selector, SelectorError } from './label-selector.js';
import { validateLabelSelector } from './validation-selector.js';

function validateWorkload(o: Obj, kind: 'Deployment' | 'ReplicaSet', out: FieldError[]): void {
  const s = o.spec;
  if (!isObj(s)) {
    out.push(required('spec'));
    return;
  }
  if (s.replicas !== undefined && (!isInt(s.replicas) || s.replicas < 0)) {
    out.push(invalidValue('spec.replicas', s.replicas, 'must be greater than or equal to 0'));
  }
  if (s.minReadySeconds !== undefined && (!isInt(s.minReadySeconds) || s.minReadySeconds < 0)) {
    out.push(invalidValue('spec.minReadySeconds', s.minReadySeconds, 'must be greater than or equal to 0'));
  }
  const sel = s.selector;
  if (!isObj(sel)) out.push(required('spec.selector'));
  else {
    validateLabelSelector(sel, 'spec.selector', out);
    const empty =
      Object.keys(sel.matchLabels ?? {}).length === 0 && (sel.matchExpressions ?? []).length === 0;
    if (empty)
      out.push(
        invalidValue(
          'spec.selector',
          sel,
          `empty selector is invalid for ${kind === 'Deployment' ? 'deployment' : 'replicaset'}`,
        ),
      );
  }
  const t = s.template;
  if (!isObj(t)) {
    out.push(required('spec.template'));
    return;
  }
  const tl: Record<string, string> = isObj(t.metadata?.labels) ? t.metadata.labels : {};
  if (
    isObj(sel) &&
    !(Object.keys(sel.matchLabels ?? {}).length === 0 && (sel.matchExpressions ?? []).length === 0)
  ) {
    // upstream ValidateDeploymentSpec / ValidateReplicaSetSpec (pkg/apis/apps/validation)
    let selector: Selector | undefined;
    try {
      selector = labelSelectorAsSelector(sel);
    } catch (e) {
      if (!(e instanceof SelectorError)) throw e;
      out.push(invalidValue('spec.selector', sel, 'invalid label selector'));
    }
    if (selector && !selector.matches(tl)) {
      out.push(
        invalidValue('spec.template.metadata.labels', tl, '`selector` does not match template `labels`'),
      );
    }
  }
  if (isObj(t.metadata))
    validateMeta(t, { kind: 'Pod' } as ResourceInfo, out, 'spec.template.metadata', true);
  validatePodSpec(t.spec, 'spec.template.spec', out, true);
  if (kind === 'Deployment') {
    const st = s.strategy;
    if (isObj(st)) {
      if (st.type !== undefined && !['Recreate', 'RollingUpdate'].includes(st.type)) {
        out.push(notSupported('spec.strategy.type', st.type, ['Recreate', 'RollingUpdate']));
      }
      if (st.type === 'Recreate' && st.rollingUpdate) {
        out.push(
          forbiddenField(
            'spec.strategy.rollingUpdate',
            "may not be specified when strategy `type` is 'Recreate'",
          ),
        );
      }
      const ru = st.rollingUpdate;
      if (isObj(ru)) {
        const zero = (v: unknown) => v === 0 || v === '0%' || v === '0';
        for (const f of ['maxUnavailable', 'maxSurge']) {
          const v = ru[f];
          if (v === undefined) continue;
          if (typeof v === 'string') {
            if (!/^[0-9]+%$/.test(v))
              out.push(
                invalidValue(
                  `spec.strategy.rollingUpdate.${f}`,
                  v,
                  "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')",
                ),
              );
            else if (f === 'maxUnavailable' && Number(v.slice(0, -1)) > 100)
              out.push(invalidValue(`spec.strategy.rollingUpdate.${f}`, v, 'must not be greater than 100%'));
          } else if (!isInt(v) || v < 0)
            out.push(
              invalidValue(`spec.strategy.rollingUpdate.${f}`, v, 'must be greater than or equal to 0'),
            );
        }
        if (zero(ru.maxUnavailable) && zero(ru.maxSurge)) {
          out.push(
            invalidValue(
              'spec.strategy.rollingUpdate.maxUnavailable',
              ru.maxUnavailable,
              'may not be 0 when `maxSurge` is 0',
            ),
          );
        }
      }
    }
    if (
      s.revisionHistoryLimit !== undefined &&
      (!isInt(s.revisionHistoryLimit) || s.revisionHistoryLimit < 0)
    ) {
      out.push(
        invalidValue(
          'spec.revisionHistoryLimit',
          s.revisionHistoryLimit,
          'must be greater than or equal to 0',
        ),
      );
    }
    if (
      s.progressDeadlineSeconds !== undefined &&
      isInt(s.progressDeadlineSeconds) &&
      isInt(s.minReadySeconds) &&
      s.progressDeadlineSeconds <= s.minReadySeconds
    ) {
      out.push(
        invalidValue(
          'spec.progressDeadlineSeconds',
          s.progressDeadlineSeconds,
          'must be greater than minReadySeconds',
        ),
      );
    }
  }
}

/** Deployment and ReplicaSet rules; the selector is immutable in apps/v1. */
export const workloadRules: KindRules = {
  validate: (o, out, info) => validateWorkload(o, info.kind as 'Deployment' | 'ReplicaSet', out),
  validateUpdate(n, o, out) {
    if (!deepEqual(n.spec?.selector, o.spec?.selector))
      out.push(invalidValue('spec.selector', n.spec?.selector, 'field is immutable'));
  },
};
