/**
 * The columns kube-apiserver prints for each built-in kind, and how each cell is computed
 * (upstream: pkg/printers/internalversion/printers.go, release 1.32: `AddHandlers` for the column
 * definitions, `printPod`, `printNode`, … for the cells). Descriptions are shortened; names, types,
 * priorities and cell text follow upstream. A kind without an entry gets the default convertor's
 * Name / Created At (table.ts).
 */
export interface Column {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  format?: string;
  description?: string;
  /** 1 = shown only with `-o wide` */
  priority?: number;
}

export type Cell = string | number | boolean;

export interface Printer {
  columns: Column[];
  row(obj: Obj, now: number): Cell[];
}

// biome-ignore lint/suspicious/noExplicitAny: printers read arbitrary fields of arbitrary kinds
type Obj = any;

const NAME: Column = { name: 'Name', type: 'string', format: 'name', description: 'Name of the object' };
const AGE: Column = { name: 'Age', type: 'string', description: 'Time since the object was created' };
const wide = (name: string, type: Column['type'] = 'string'): Column => ({ name, type, priority: 1 });
const col = (name: string, type: Column['type'] = 'string'): Column => ({ name, type });
const CONTAINERS = wide('Containers');
const IMAGES = wide('Images');
const SELECTOR = wide('Selector');

/**
 * A duration as kubectl shows ages: `45s`, `3m12s`, `25m`, `5h10m`, `3d4h`, `2y10d`
 * (upstream: staging/src/k8s.io/apimachinery/pkg/util/duration/duration.go HumanDuration).
 */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.trunc(seconds / 60);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.trunc(minutes / 60);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${Math.trunc(hours / 24)}d` : `${Math.trunc(hours / 24)}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${Math.trunc(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const dy = Math.trunc(hours / 24) % 365;
    const y = Math.trunc(hours / 24 / 365);
    return dy === 0 ? `${y}y` : `${y}y${dy}d`;
  }
  return `${Math.trunc(hours / 24 / 365)}y`;
}

/** translateTimestampSince: `<unknown>` for a missing time. */
export function since(ts: string | undefined | null, now: number): string {
  if (!ts) return '<unknown>';
  const t = Date.parse(ts);
  return Number.isNaN(t) ? '<unknown>' : humanDuration(now - t);
}

const age = (o: Obj, now: number) => since(o.metadata?.creationTimestamp, now);
const orNone = (s: string | undefined | null) => (s ? s : '<none>');
/** labels.FormatLabels: `a=b,c=d` sorted by key, `<none>` when empty */
function formatLabels(m: Record<string, string> | undefined): string {
  const keys = Object.keys(m ?? {}).sort();
  return keys.length ? keys.map((k) => `${k}=${m![k]}`).join(',') : '<none>';
}

function containersAndImages(podSpec: Obj): [string, string] {
  const cs: Obj[] = podSpec?.containers ?? [];
  return [cs.map((c) => c.name).join(','), cs.map((c) => c.image).join(',')];
}

/**
 * A metav1.LabelSelector as metav1.LabelSelectorAsSelector(…).String() prints it: requirements
 * sorted by key, `k=v`, `k in (a,b)`, `k notin (a,b)`, `k`, `!k`; `<none>` when empty.
 */
function selectorString(sel: Obj): string {
  if (!sel) return '<none>';
  const reqs: [string, string][] = [];
  for (const [k, v] of Object.entries(sel.matchLabels ?? {})) reqs.push([k, `${k}=${v}`]);
  for (const e of sel.matchExpressions ?? []) {
    const values = [...(e.values ?? [])].sort().join(',');
    const text =
      e.operator === 'In'
        ? `${e.key} in (${values})`
        : e.operator === 'NotIn'
          ? `${e.key} notin (${values})`
          : e.operator === 'Exists'
            ? e.key
            : `!${e.key}`;
    reqs.push([e.key, text]);
  }
  reqs.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return reqs.length ? reqs.map((r) => r[1]).join(',') : '<none>';
}

// ------------------------------------------------------------------ core

/** printPod: READY, STATUS (the reason a person wants to see), RESTARTS */
function podRow(pod: Obj, now: number): Cell[] {
  const status = pod.status ?? {};
  let restarts = 0;
  let lastRestart = 0;
  const total = pod.spec?.containers?.length ?? 0;
  let ready = 0;
  let reason: string = status.reason || status.phase || '';
  for (const c of pod.status?.conditions ?? [])
    if (c.type === 'PodScheduled' && c.reason === 'SchedulingGated') reason = 'SchedulingGated';

  let initializing = false;
  const inits: Obj[] = status.initContainerStatuses ?? [];
  inits.forEach((c, i) => {
    restarts += c.restartCount ?? 0;
    const term = c.state?.terminated;
    if (term && term.exitCode === 0) return;
    if (c.state?.running && c.started) return; // a running sidecar
    initializing = true;
    if (term) reason = term.reason ? `Init:${term.reason}` : `Init:ExitCode:${term.exitCode}`;
    else if (c.state?.waiting?.reason && c.state.waiting.reason !== 'PodInitializing')
      reason = `Init:${c.state.waiting.reason}`;
    else reason = `Init:${i}/${pod.spec?.initContainers?.length ?? inits.length}`;
  });
  const initialized = (status.conditions ?? []).some(
    (c: Obj) => c.type === 'Initialized' && c.status === 'True',
  );
  if (!initializing || initialized) {
    let hasRunning = false;
    const cs: Obj[] = status.containerStatuses ?? [];
    for (let i = cs.length - 1; i >= 0; i--) {
      const c = cs[i];
      restarts += c.restartCount ?? 0;
      const lt = c.lastState?.terminated?.finishedAt;
      if (lt) lastRestart = Math.max(lastRestart, Date.parse(lt));
      const st = c.state ?? {};
      if (st.waiting?.reason) reason = st.waiting.reason;
      else if (st.terminated?.reason) reason = st.terminated.reason;
      else if (st.terminated)
        reason = st.terminated.signal
          ? `Signal:${st.terminated.signal}`
          : `ExitCode:${st.terminated.exitCode}`;
      else if (c.ready && st.running) {
        hasRunning = true;
        ready++;
      }
    }
    if (reason === 'Completed' && hasRunning) {
      const podReady = (status.conditions ?? []).some((c: Obj) => c.type === 'Ready' && c.status === 'True');
      reason = podReady ? 'Running' : 'NotReady';
    }
  }
  if (pod.metadata?.deletionTimestamp && status.reason === 'NodeLost') reason = 'Unknown';
  else if (pod.metadata?.deletionTimestamp && status.phase !== 'Succeeded' && status.phase !== 'Failed')
    reason = 'Terminating';
  const restartsText = lastRestart
    ? `${restarts} (${humanDuration(now - lastRestart)} ago)`
    : String(restarts);
  const gates: Obj[] = pod.spec?.readinessGates ?? [];
  let gatesText = '<none>';
  if (gates.length) {
    const trueTypes = new Set(
      (status.conditions ?? []).filter((c: Obj) => c.status === 'True').map((c: Obj) => c.type),
    );
    gatesText = `${gates.filter((g) => trueTypes.has(g.conditionType)).length}/${gates.length}`;
  }
  const ip = status.podIPs?.[0]?.ip ?? status.podIP;
  return [
    pod.metadata?.name ?? '',
    `${ready}/${total}`,
    reason,
    restartsText,
    age(pod, now),
    orNone(ip),
    orNone(pod.spec?.nodeName),
    orNone(status.nominatedNodeName),
    gatesText,
  ];
}

/** findNodeRoles: `node-role.kubernetes.io/<role>` labels and `kubernetes.io/role` */
function nodeRoles(labels: Record<string, string> | undefined): string {
  const roles = new Set<string>();
  for (const [k, v] of Object.entries(labels ?? {})) {
    if (k.startsWith('node-role.kubernetes.io/')) {
      const r = k.slice('node-role.kubernetes.io/'.length);
      if (r) roles.add(r);
    } else if (k === 'kubernetes.io/role' && v) roles.add(v);
  }
  return roles.size ? [...roles].sort().join(',') : '<none>';
}

function nodeRow(node: Obj, now: number): Cell[] {
  const statuses: string[] = [];
  const readyCond = (node.status?.conditions ?? []).find((c: Obj) => c.type === 'Ready');
  if (readyCond) statuses.push(readyCond.status === 'True' ? 'Ready' : 'NotReady');
  if (statuses.length === 0) statuses.push('Unknown');
  if (node.spec?.unschedulable) statuses.push('SchedulingDisabled');
  const addr = (t: string) =>
    (node.status?.addresses ?? []).find((a: Obj) => a.type === t)?.address ?? '<none>';
  const info = node.status?.nodeInfo ?? {};
  return [
    node.metadata?.name ?? '',
    statuses.join(','),
    nodeRoles(node.metadata?.labels),
    age(node, now),
    info.kubeletVersion ?? '',
    addr('InternalIP'),
    addr('ExternalIP'),
    info.osImage || '<unknown>',
    info.kernelVersion || '<unknown>',
    info.containerRuntimeVersion || '<unknown>',
  ];
}

/** getServiceExternalIP */
function serviceExternalIP(svc: Obj): string {
  const ext: string[] = svc.spec?.externalIPs ?? [];
  switch (svc.spec?.type ?? 'ClusterIP') {
    case 'ClusterIP':
    case 'NodePort':
      return ext.length ? ext.join(',') : '<none>';
    case 'LoadBalancer': {
      const ips = (svc.status?.loadBalancer?.ingress ?? [])
        .map((i: Obj) => i.ip || i.hostname)
        .filter(Boolean);
      const all = [...ips, ...ext];
      return all.length ? all.join(',') : '<pending>';
    }
    case 'ExternalName':
      return svc.spec?.externalName ?? '';
  }
  return '<unknown>';
}

/** makePortString */
function servicePorts(svc: Obj): string {
  const ports: Obj[] = svc.spec?.ports ?? [];
  if (!ports.length) return '<none>';
  return ports
    .map((p) =>
      p.nodePort ? `${p.port}:${p.nodePort}/${p.protocol ?? 'TCP'}` : `${p.port}/${p.protocol ?? 'TCP'}`,
    )
    .join(',');
}

function eventSource(e: Obj): string {
  const comp = e.source?.component || e.reportingComponent || e.reportingController || '';
  const host = e.source?.host || e.reportingInstance || '';
  return host ? `${comp}, ${host}` : comp;
}

function eventRow(e: Obj, now: number): Cell[] {
  let first = since(e.firstTimestamp, now);
  if (!e.firstTimestamp) first = since(e.eventTime, now);
  let last = e.lastTimestamp ? since(e.lastTimestamp, now) : first;
  let count = e.count ?? 0;
  if (e.series) {
    last = since(e.series.lastObservedTime, now);
    count = e.series.count;
  } else if (!count) count = 1;
  const io = e.involvedObject ?? {};
  const target = io.name
    ? `${String(io.kind ?? '').toLowerCase()}/${io.name}`
    : String(io.kind ?? '').toLowerCase();
  return [
    last,
    e.type ?? '',
    e.reason ?? '',
    target,
    io.fieldPath ?? '',
    eventSource(e),
    String(e.message ?? '').trim(),
    first,
    count,
    e.metadata?.name ?? '',
  ];
}

function pvAccessModes(modes: string[] | undefined): string {
  const short: Record<string, string> = {
    ReadWriteOnce: 'RWO',
    ReadOnlyMany: 'ROX',
    ReadWriteMany: 'RWX',
    ReadWriteOncePod: 'RWOP',
  };
  return (modes ?? []).map((m) => short[m] ?? m).join(',');
}

/** printReplicaSet / printReplicationController: DESIRED, CURRENT, READY */
function replicaPrinter(selector: (sel: Obj) => string): Printer {
  return {
    columns: [
      NAME,
      col('Desired', 'integer'),
      col('Current', 'integer'),
      col('Ready', 'integer'),
      AGE,
      CONTAINERS,
      IMAGES,
      SELECTOR,
    ],
    row: (o, now) => {
      const [c, i] = containersAndImages(o.spec?.template?.spec);
      return [
        o.metadata.name,
        o.spec?.replicas ?? 1,
        o.status?.replicas ?? 0,
        o.status?.readyReplicas ?? 0,
        age(o, now),
        c,
        i,
        selector(o.spec?.selector),
      ];
    },
  };
}

// ------------------------------------------------------------------ the table

const PRINTERS: Record<string, Printer> = {
  Pod: {
    columns: [
      NAME,
      col('Ready'),
      col('Status'),
      col('Restarts'),
      AGE,
      wide('IP'),
      wide('Node'),
      wide('Nominated Node'),
      wide('Readiness Gates'),
    ],
    row: podRow,
  },
  Node: {
    columns: [
      NAME,
      col('Status'),
      col('Roles'),
      AGE,
      col('Version'),
      wide('Internal-IP'),
      wide('External-IP'),
      wide('OS-Image'),
      wide('Kernel-Version'),
      wide('Container-Runtime'),
    ],
    row: nodeRow,
  },
  Namespace: {
    columns: [NAME, col('Status'), AGE],
    row: (o, now) => [o.metadata.name, o.status?.phase ?? '', age(o, now)],
  },
  Service: {
    columns: [NAME, col('Type'), col('Cluster-IP'), col('External-IP'), col('Port(s)'), AGE, SELECTOR],
    row: (o, now) => [
      o.metadata.name,
      o.spec?.type ?? 'ClusterIP',
      orNone(o.spec?.clusterIP),
      serviceExternalIP(o),
      servicePorts(o),
      age(o, now),
      formatLabels(o.spec?.selector),
    ],
  },
  Event: {
    columns: [
      col('Last Seen'),
      col('Type'),
      col('Reason'),
      col('Object'),
      wide('Subobject'),
      wide('Source'),
      col('Message'),
      wide('First Seen'),
      wide('Count'),
      { ...wide('Name'), format: 'name' },
    ],
    row: eventRow,
  },
  Deployment: {
    columns: [
      NAME,
      col('Ready'),
      col('Up-to-date', 'integer'),
      col('Available', 'integer'),
      AGE,
      CONTAINERS,
      IMAGES,
      SELECTOR,
    ],
    row: (o, now) => {
      const [c, i] = containersAndImages(o.spec?.template?.spec);
      const s = o.status ?? {};
      return [
        o.metadata.name,
        `${s.readyReplicas ?? 0}/${o.spec?.replicas ?? 1}`,
        s.updatedReplicas ?? 0,
        s.availableReplicas ?? 0,
        age(o, now),
        c,
        i,
        selectorString(o.spec?.selector),
      ];
    },
  },
  ReplicaSet: replicaPrinter(selectorString),
  // a ReplicationController's selector is a plain label map
  ReplicationController: replicaPrinter(formatLabels),
  StatefulSet: {
    columns: [NAME, col('Ready'), AGE, CONTAINERS, IMAGES],
    row: (o, now) => {
      const [c, i] = containersAndImages(o.spec?.template?.spec);
      return [o.metadata.name, `${o.status?.readyReplicas ?? 0}/${o.spec?.replicas ?? 1}`, age(o, now), c, i];
    },
  },
  DaemonSet: {
    columns: [
      NAME,
      col('Desired', 'integer'),
      col('Current', 'integer'),
      col('Ready', 'integer'),
      col('Up-to-date', 'integer'),
      col('Available', 'integer'),
      col('Node Selector'),
      AGE,
      CONTAINERS,
      IMAGES,
      SELECTOR,
    ],
    row: (o, now) => {
      const [c, i] = containersAndImages(o.spec?.template?.spec);
      const s = o.status ?? {};
      return [
        o.metadata.name,
        s.desiredNumberScheduled ?? 0,
        s.currentNumberScheduled ?? 0,
        s.numberReady ?? 0,
        s.updatedNumberScheduled ?? 0,
        s.numberAvailable ?? 0,
        formatLabels(o.spec?.template?.spec?.nodeSelector),
        age(o, now),
        c,
        i,
        selectorString(o.spec?.selector),
      ];
    },
  },
  Job: {
    columns: [NAME, col('Status'), col('Completions'), col('Duration'), AGE, CONTAINERS, IMAGES, SELECTOR],
    row: (o, now) => {
      const [c, i] = containersAndImages(o.spec?.template?.spec);
      const s = o.status ?? {};
      const conds: Obj[] = s.conditions ?? [];
      const has = (t: string) => conds.some((x) => x.type === t && x.status === 'True');
      let status = 'Running';
      if (has('Complete')) status = 'Complete';
      else if (has('Failed')) status = 'Failed';
      else if (o.metadata.deletionTimestamp) status = 'Terminating';
      else if (has('SuccessCriteriaMet')) status = 'SuccessCriteriaMet';
      else if (has('FailureTarget')) status = 'FailureTarget';
      else if (has('Suspended')) status = 'Suspended';
      const succeeded = s.succeeded ?? 0;
      const parallelism = o.spec?.parallelism ?? 1;
      const completions =
        o.spec?.completions != null
          ? `${succeeded}/${o.spec.completions}`
          : parallelism > 1
            ? `${succeeded}/1 of ${parallelism}`
            : `${succeeded}/1`;
      let duration = '';
      if (s.startTime) {
        const end = s.completionTime ? Date.parse(s.completionTime) : now;
        duration = humanDuration(end - Date.parse(s.startTime));
      }
      return [
        o.metadata.name,
        status,
        completions,
        duration,
        age(o, now),
        c,
        i,
        selectorString(o.spec?.selector),
      ];
    },
  },
  CronJob: {
    columns: [
      NAME,
      col('Schedule'),
      col('Timezone'),
      col('Suspend', 'boolean'),
      col('Active', 'integer'),
      col('Last Schedule'),
      AGE,
      CONTAINERS,
      IMAGES,
      SELECTOR,
    ],
    row: (o, now) => {
      const [c, i] = containersAndImages(o.spec?.jobTemplate?.spec?.template?.spec);
      return [
        o.metadata.name,
        o.spec?.schedule ?? '',
        orNone(o.spec?.timeZone),
        !!o.spec?.suspend,
        (o.status?.active ?? []).length,
        o.status?.lastScheduleTime ? since(o.status.lastScheduleTime, now) : '<none>',
        age(o, now),
        c,
        i,
        selectorString(o.spec?.jobTemplate?.spec?.selector),
      ];
    },
  },
  EndpointSlice: {
    columns: [NAME, col('AddressType'), col('Ports'), col('Endpoints'), AGE],
    row: (o, now) => {
      const ports: Obj[] = o.ports ?? [];
      const portText = ports.length
        ? ports.map((p) => (p.port == null ? '<unset>' : String(p.port))).join(',')
        : '<unset>';
      const addrs: string[] = (o.endpoints ?? []).flatMap((e: Obj) => e.addresses ?? []);
      let epText = '<unset>';
      if (addrs.length) {
        epText = addrs.slice(0, 3).join(',');
        if (addrs.length > 3) epText += ` + ${addrs.length - 3} more...`;
      }
      return [o.metadata.name, o.addressType ?? '', portText, epText, age(o, now)];
    },
  },
  Endpoints: {
    columns: [NAME, col('Endpoints'), AGE],
    row: (o, now) => {
      const eps: string[] = [];
      for (const s of o.subsets ?? [])
        for (const a of s.addresses ?? [])
          for (const p of s.ports?.length ? s.ports : [{}]) eps.push(p.port ? `${a.ip}:${p.port}` : a.ip);
      let text = eps.length ? eps.slice(0, 3).join(',') : '<none>';
      if (eps.length > 3) text += ` + ${eps.length - 3} more...`;
      return [o.metadata.name, text, age(o, now)];
    },
  },
  Lease: {
    columns: [NAME, col('Holder'), AGE],
    row: (o, now) => [o.metadata.name, o.spec?.holderIdentity ?? '', age(o, now)],
  },
  ConfigMap: {
    columns: [NAME, col('Data', 'integer'), AGE],
    row: (o, now) => [
      o.metadata.name,
      Object.keys(o.data ?? {}).length + Object.keys(o.binaryData ?? {}).length,
      age(o, now),
    ],
  },
  Secret: {
    columns: [NAME, col('Type'), col('Data', 'integer'), AGE],
    row: (o, now) => [
      o.metadata.name,
      o.type ?? 'Opaque',
      Object.keys(o.data ?? {}).length + Object.keys(o.stringData ?? {}).length,
      age(o, now),
    ],
  },
  ServiceAccount: {
    columns: [NAME, col('Secrets', 'integer'), AGE],
    row: (o, now) => [o.metadata.name, (o.secrets ?? []).length, age(o, now)],
  },
  PersistentVolume: {
    columns: [
      NAME,
      col('Capacity'),
      col('Access Modes'),
      col('Reclaim Policy'),
      col('Status'),
      col('Claim'),
      col('StorageClass'),
      col('VolumeAttributesClass'),
      col('Reason'),
      AGE,
      wide('VolumeMode'),
    ],
    row: (o, now) => {
      const ref = o.spec?.claimRef;
      return [
        o.metadata.name,
        String(o.spec?.capacity?.storage ?? ''),
        pvAccessModes(o.spec?.accessModes),
        o.spec?.persistentVolumeReclaimPolicy ?? '',
        o.status?.phase ?? '',
        ref ? `${ref.namespace}/${ref.name}` : '',
        o.spec?.storageClassName ?? '',
        orNone(o.spec?.volumeAttributesClassName),
        o.status?.reason ?? '',
        age(o, now),
        o.spec?.volumeMode ?? '<unset>',
      ];
    },
  },
  PersistentVolumeClaim: {
    columns: [
      NAME,
      col('Status'),
      col('Volume'),
      col('Capacity'),
      col('Access Modes'),
      col('StorageClass'),
      col('VolumeAttributesClass'),
      AGE,
      wide('VolumeMode'),
    ],
    row: (o, now) => {
      const bound = !!o.spec?.volumeName;
      return [
        o.metadata.name,
        o.metadata.deletionTimestamp ? 'Terminating' : (o.status?.phase ?? ''),
        o.spec?.volumeName ?? '',
        bound ? String(o.status?.capacity?.storage ?? '') : '',
        bound ? pvAccessModes(o.status?.accessModes) : '',
        o.spec?.storageClassName ?? '',
        orNone(o.spec?.volumeAttributesClassName),
        age(o, now),
        o.spec?.volumeMode ?? '<unset>',
      ];
    },
  },
  StorageClass: {
    columns: [
      NAME,
      col('Provisioner'),
      col('ReclaimPolicy'),
      col('VolumeBindingMode'),
      col('AllowVolumeExpansion'),
      AGE,
    ],
    row: (o, now) => {
      const a = o.metadata.annotations ?? {};
      const isDefault =
        a['storageclass.kubernetes.io/is-default-class'] === 'true' ||
        a['storageclass.beta.kubernetes.io/is-default-class'] === 'true';
      return [
        isDefault ? `${o.metadata.name} (default)` : o.metadata.name,
        o.provisioner ?? '',
        o.reclaimPolicy ?? 'Delete',
        o.volumeBindingMode ?? 'Immediate',
        String(!!o.allowVolumeExpansion),
        age(o, now),
      ];
    },
  },
  PriorityClass: {
    columns: [NAME, col('Value', 'integer'), col('Global-Default', 'boolean'), AGE, col('PreemptionPolicy')],
    row: (o, now) => [
      o.metadata.name,
      o.value ?? 0,
      !!o.globalDefault,
      age(o, now),
      o.preemptionPolicy ?? 'PreemptLowerPriority',
    ],
  },
  PodDisruptionBudget: {
    columns: [NAME, col('Min Available'), col('Max Unavailable'), col('Allowed Disruptions', 'integer'), AGE],
    row: (o, now) => [
      o.metadata.name,
      o.spec?.minAvailable != null ? String(o.spec.minAvailable) : 'N/A',
      o.spec?.maxUnavailable != null ? String(o.spec.maxUnavailable) : 'N/A',
      o.status?.disruptionsAllowed ?? 0,
      age(o, now),
    ],
  },
  CSINode: {
    columns: [NAME, col('Drivers', 'integer'), AGE],
    row: (o, now) => [o.metadata.name, (o.spec?.drivers ?? []).length, age(o, now)],
  },
  HorizontalPodAutoscaler: {
    columns: [
      NAME,
      col('Reference'),
      col('Targets'),
      col('MinPods'),
      col('MaxPods', 'integer'),
      col('Replicas', 'integer'),
      AGE,
    ],
    row: (o, now) => {
      const ref = o.spec?.scaleTargetRef ?? {};
      return [
        o.metadata.name,
        `${ref.kind ?? ''}/${ref.name ?? ''}`,
        hpaTargets(o.spec?.metrics ?? [], o.status?.currentMetrics ?? []),
        String(o.spec?.minReplicas ?? 1),
        o.spec?.maxReplicas ?? 0,
        o.status?.currentReplicas ?? 0,
        age(o, now),
      ];
    },
  },
  Ingress: {
    columns: [NAME, col('Class'), col('Hosts'), col('Address'), col('Ports'), AGE],
    row: (o, now) => {
      const hosts = (o.spec?.rules ?? []).map((r: Obj) => r.host).filter(Boolean);
      const addrs = (o.status?.loadBalancer?.ingress ?? []).map((i: Obj) => i.ip || i.hostname);
      return [
        o.metadata.name,
        orNone(o.spec?.ingressClassName),
        hosts.length ? hosts.join(',') : '*',
        addrs.join(','),
        o.spec?.tls?.length ? '80, 443' : '80',
        age(o, now),
      ];
    },
  },
  // resource.k8s.io (upstream printers.go: deviceClass, resourceClaim, resourceClaimTemplate, resourceSlice)
  DeviceClass: { columns: [NAME, AGE], row: (o, now) => [o.metadata.name, age(o, now)] },
  ResourceClaimTemplate: { columns: [NAME, AGE], row: (o, now) => [o.metadata.name, age(o, now)] },
  ResourceClaim: {
    columns: [NAME, col('State'), AGE],
    row: (o, now) => [o.metadata.name, resourceClaimState(o), age(o, now)],
  },
  ResourceSlice: {
    columns: [NAME, col('Node'), col('Driver'), col('Pool'), AGE],
    row: (o, now) => [
      o.metadata.name,
      o.spec?.nodeName ?? '',
      o.spec?.driver ?? '',
      o.spec?.pool?.name ?? '',
      age(o, now),
    ],
  },
};

/**
 * The TARGETS column: `cpu: 45%/70%`, `<unknown>` for a figure not observed yet, at most two
 * metrics then `+ N more...` (upstream: pkg/printers/internalversion/printers.go formatHPAMetrics).
 */
function hpaTargets(specs: Obj[], statuses: Obj[]): string {
  if (specs.length === 0) return '<none>';
  const pair = (current: unknown, target: unknown) => `${current ?? '<unknown>'}/${target}`;
  const pct = (n: unknown) => (typeof n === 'number' ? `${n}%` : undefined);
  const list = specs.map((spec, i) => {
    const st = statuses[i];
    switch (spec?.type) {
      case 'External':
      case 'Pods':
      case 'Object': {
        const key = spec.type === 'External' ? 'external' : spec.type === 'Pods' ? 'pods' : 'object';
        const t = spec[key]?.target ?? {};
        const c = st?.[key]?.current ?? {};
        if (t.averageValue !== undefined)
          return `${pair(c.averageValue, t.averageValue)}${spec.type === 'Pods' ? '' : ' (avg)'}`;
        return pair(c.value, t.value);
      }
      case 'Resource':
      case 'ContainerResource': {
        const key = spec.type === 'Resource' ? 'resource' : 'containerResource';
        const t = spec[key]?.target ?? {};
        const c = st?.[key]?.current ?? {};
        const name = spec[key]?.name;
        if (t.averageValue !== undefined) return `${name}: ${pair(c.averageValue, t.averageValue)}`;
        return `${name}: ${pair(pct(c.averageUtilization), pct(t.averageUtilization) ?? '<auto>')}`;
      }
      default:
        return '<unknown type>';
    }
  });
  return list.length > 2 ? `${list.slice(0, 2).join(', ')} + ${list.length - 2} more...` : list.join(', ');
}

/** upstream resourceClaimState: deleted, pending | allocated[,reserved] */
function resourceClaimState(o: Obj): string {
  const states: string[] = [];
  if (o.metadata.deletionTimestamp) states.push('deleted');
  if (!o.status?.allocation) {
    if (!o.metadata.deletionTimestamp) states.push('pending');
  } else {
    states.push('allocated');
    if ((o.status.reservedFor ?? []).length > 0) states.push('reserved');
  }
  return states.join(',');
}

/** The printer of a kind, or undefined (the default convertor then applies). */
export function printerFor(kind: string): Printer | undefined {
  return PRINTERS[kind];
}
