/**
 * Every number the JS side and the WASM kernel must agree on: field indices of the three headers
 * they share in linear memory, flag bits, expression ops, NodeResourcesFit strategy ids, reason
 * bits, node status values and score-column indices. assembly/scheduler.ts imports this file, so
 * both sides compile from the same constants; the description of the whole layout (with a worked
 * example) is the comment at the top of assembly/scheduler.ts.
 *
 * This file is compiled by both tsc and the AssemblyScript compiler: plain `export const NAME =
 * <integer>` declarations only (no imports, no objects, no types).
 *
 * All headers are arrays of i32 at a byte address; "OFF" fields hold byte addresses of columns.
 */

/** Bytes [0, RESERVED_LOW) belong to the AssemblyScript module (static data); our heap starts above. */
export const RESERVED_LOW = 65536;
/** Table header: i32[64] at this byte address, the first byte above RESERVED_LOW. */
export const TABLE_HEADER = 65536;
/** First byte handed out by the bump allocator. */
export const HEAP_START = RESERVED_LOW + 4096;

// ---- table header (i32 index)
export const H_NODE_CAP = 0; // node slots allocated (multiple of 32)
export const H_SIZE = 1; // live nodes
export const H_HIGH = 2; // 1 + highest slot ever used
export const H_NUM_RES = 3; // resources interned (cpu, memory, ephemeral-storage, pods, extended…)
export const H_TAINT_WORDS = 4; // u32 words per node in the taint bitset
export const H_NUM_KEYS = 5; // label keys interned (columns in use)
export const H_NODE_WORDS = 6; // NODE_CAP / 32
export const H_IMAGE_CAP = 7; // image bitset rows allocated
export const H_RES_CAP = 8; // resource rows allocated
export const H_KEY_CAP = 9; // label key columns allocated
export const H_TOPO_CAP = 10; // topology key columns allocated
export const H_OFF_ALLOC = 16; // f64[RES_CAP][NODE_CAP] allocatable
export const H_OFF_REQ = 17; // f64[RES_CAP][NODE_CAP] requested (pods: number of pods)
export const H_OFF_NZCPU = 18; // f64[NODE_CAP] non-zero requested milli-CPU (scoring)
export const H_OFF_NZMEM = 19; // f64[NODE_CAP] non-zero requested memory bytes (scoring)
export const H_OFF_FLAGS = 20; // u8[NODE_CAP] F_* bits
export const H_OFF_TAINTS = 21; // u32[NODE_CAP][TAINT_WORDS] taint-id bitset per node
export const H_OFF_LABELS = 22; // i32[KEY_CAP][NODE_CAP] per label key: value id + 1, 0 = absent
export const H_OFF_IMAGES = 23; // u32[IMAGE_CAP][NODE_WORDS] per image: bitset of nodes holding it
export const H_OFF_ORDER = 24; // i32[NODE_CAP] scan order (slots), first SIZE entries valid
export const H_OFF_TOPO = 25; // i32[TOPO_CAP][NODE_CAP] topology domain id, -1 = unlabeled
export const H_OFF_ALLOCINV = 26; // f64[RES_CAP][NODE_CAP] 1 / allocatable (0 when 0): division-free exact idiv
export const H_OFF_FREE = 27; // f64[RES_CAP][NODE_CAP] allocatable − requested, kept in step with both: the filter's one load per resource

// ---- node flags (u8 column)
export const F_LIVE = 1;
export const F_UNSCHEDULABLE = 2;
export const F_READY = 4;

// ---- fixed resource indices
export const R_CPU = 0;
export const R_MEMORY = 1;
export const R_EPHEMERAL = 2;
export const R_PODS = 3;

// ---- query header (i32 index); the query is compiled by podquery.ts
export const Q_HEADER_INTS = 64;
export const Q_FLAGS = 0;
export const Q_NODE_NAME = 1; // -1 no spec.nodeName, -2 names a node not in the table, else slot
export const Q_TAINT_WORDS = 2;
export const Q_SEL_START = 3; // nodeSelector + required affinity: expressions [start, start+count) must all hold
export const Q_SEL_COUNT = 4;
export const Q_NUM_TERMS = 5; // required nodeSelectorTerms (OR) when QF_HAS_REQUIRED
export const Q_NUM_PREF = 6; // preferred terms
export const Q_NUM_REQ = 7; // resources with a non-zero filter request (excluding pods)
export const Q_NUM_IMAGES = 8;
export const Q_NUM_CONTAINERS = 9; // init + regular containers (ImageLocality max threshold)
export const Q_FIT_TYPE = 10; // FIT_* strategy id
export const Q_FIT_NUM = 11;
export const Q_SHAPE_NUM = 12;
export const Q_BAL_NUM = 13;
export const Q_W = 14; // 5 weights, ScorePlugin order
export const Q_NUM_RES = 19;
export const Q_OFF_BLOCK = 20; // u32[TAINT_WORDS] NoSchedule/NoExecute taints the pod does not tolerate
export const Q_OFF_PREFER = 21; // u32[TAINT_WORDS] PreferNoSchedule taints the pod does not tolerate
export const Q_OFF_EXPR = 22; // i32[4] per expression: op, label key column, arg (bitset address | slot), bitset words (In/NotIn) | 0
export const Q_OFF_TERMS = 23; // i32[2] per required term: first expression, count
export const Q_OFF_PREF = 24; // i32[4] per preferred term: first expression, count, weight, 0
export const Q_OFF_REQ = 25; // f64[NUM_RES] filter request per resource
export const Q_OFF_REQLIST = 26; // i32[NUM_REQ] resource indices with request > 0 (pods excluded)
export const Q_OFF_PORTS = 27; // u32[NODE_WORDS] nodes whose used host ports conflict with the pod's
export const Q_OFF_IMG = 28; // i32[NUM_IMAGES] image ids present on at least one node
export const Q_OFF_IMGSCORE = 29; // f64[NUM_IMAGES] scaledImageScore (size × numNodes/totalNodes, truncated)
export const Q_OFF_FIT_RES = 30; // i32[FIT_NUM] resource index (-1 unknown → skipped)
export const Q_OFF_FIT_KIND = 31; // i32[FIT_NUM] K_* which node column "requested" comes from
export const Q_OFF_FIT_W = 32; // i32[FIT_NUM] weight
export const Q_OFF_FIT_REQ = 33; // f64[FIT_NUM] pod request (non-zero defaults for cpu/memory)
export const Q_OFF_SHAPE_U = 34; // i32[SHAPE_NUM] utilization
export const Q_OFF_SHAPE_S = 35; // i32[SHAPE_NUM] score already scaled ×10
export const Q_OFF_BAL_RES = 36; // i32[BAL_NUM]
export const Q_OFF_BAL_KIND = 37; // i32[BAL_NUM]
export const Q_OFF_BAL_REQ = 38; // f64[BAL_NUM] pod request (actual requests)
// the cross-pod plugins (PodTopologySpread, InterPodAffinity) over per-domain arrays the framework
// computes per cycle (src/scheduler/engine/crosspod.ts); every count 0 without them. A domain
// array is indexed by a TOPO row's cell: the node's domain id + 1, 0 for a node without the key.
export const Q_X_NUM_CHECKS = 39; // filter checks: a node passes when every check's verdict is 1
export const Q_X_OFF_CHECKS = 40; // i32[2] per check: TOPO row, u8[domains + 1] verdict address
export const Q_X_NUM_IPA = 41; // InterPodAffinity score entries (a key's sums, or a weighted term)
export const Q_X_OFF_IPA = 42; // i32[4] per entry: TOPO row, f64[domains + 1] address (cell 0 = 0), weight, 0
export const Q_X_W_IPA = 43; // InterPodAffinity's weight (0: not scored in the kernel)
export const Q_X_NUM_PTS = 44; // PodTopologySpread score: one entry per ScheduleAnyway constraint
export const Q_X_OFF_PTS = 45; // i32[PTS_INTS] per constraint (PTS_* fields)
export const Q_X_W_PTS = 46; // PodTopologySpread's weight (0: not scored in the kernel)
export const Q_X_PTS_ALL_KEYS = 47; // 1: a node without every constraint's key is ignored (requireAllTopologies)
export const Q_X_OFF_LOG = 48; // f64[nodes + 1]: ln(k + 2), topologyNormalizingWeight by domain count k
export const Q_X_OFF_SCRATCH = 49; // f64[2 × NODE_CAP]: the kernels' raw cross-pod scores of the feasible nodes
// PodTopologySpread score constraint fields
export const PTS_INTS = 8;
export const PTS_ROW = 0; // TOPO row of the constraint's key
export const PTS_PER_NODE = 1; // 1: counts per node slot (the hostname key), 0: per domain
export const PTS_COUNTS = 2; // f64 counts address: [domain + 1] or [slot]
export const PTS_SKEW = 3; // maxSkew − 1
export const PTS_SEEN = 4; // u8[domains + 1] scratch: domains seen among the scored nodes
export const PTS_DOMAINS = 5; // domains + 1 (length of the seen scratch)
export const PTS_SIZE = 7; // kernel scratch: the number of those domains

// NodeResourcesFit scoring strategies (Q_FIT_TYPE)
export const FIT_LEAST_ALLOCATED = 0;
export const FIT_MOST_ALLOCATED = 1;
export const FIT_REQUESTED_TO_CAPACITY_RATIO = 2;

// query flags
export const QF_TOL_UNSCHEDULABLE = 1; // tolerates node.kubernetes.io/unschedulable:NoSchedule
export const QF_HAS_REQUIRED = 2; // required node affinity present (OR of terms)
export const QF_HAS_PORTS = 4; // Q_OFF_PORTS is valid
export const QF_REQ_ZERO = 8; // pod requests nothing: NodeResourcesFit checks only the pod count
export const QF_BEST_EFFORT = 16; // BalancedAllocation skipped (all its requests are zero)
export const QF_SELECTOR_NEVER = 32; // nodeSelector names a label no node has: no node matches
export const QF_HAS_PREFER_TAINTS = 64; // some PreferNoSchedule taint is untolerated

// expression ops
export const OP_EXISTS = 0;
export const OP_NOT_EXISTS = 1;
export const OP_IN = 2; // value id bit set in the bitset at arg
export const OP_NOT_IN = 3;
export const OP_NAME_EQ = 4; // node slot == arg (matchFields metadata.name In)
export const OP_NAME_NE = 5;
export const OP_TRUE = 6;
export const OP_FALSE = 7;
export const OP_EQ = 8; // label value id + 1 == arg (nodeSelector entries, In with one known value)
export const OP_NE = 9;

// where "requested" comes from for a scored resource
export const K_SKIP = -1;
export const K_NONZERO_CPU = 0;
export const K_NONZERO_MEM = 1;
export const K_REQUESTED = 2; // req column of the resource
export const K_SCALAR = 3; // req column; skipped when the pod requests 0 (extended resources)

// ---- output header (i32 index)
export const O_HEADER_INTS = 48;
export const O_CAP = 0;
export const O_FEASIBLE_COUNT = 1;
export const O_OFF_STATUS = 2; // u8[CAP]
export const O_OFF_REASONS = 3; // u32[CAP]
export const O_OFF_FEASIBLE = 4; // i32[CAP]
export const O_OFF_RAW = 5; // i32[5][CAP]
export const O_OFF_NORM = 6; // i32[5][CAP]
export const O_OFF_TOTAL = 7; // i32[CAP]
// written with the totals ('all' and 'total' output modes, at least one feasible node):
export const O_BEST = 8; // slot of the first feasible node with the highest total
export const O_BEST_TOTAL = 9; // that total
export const O_TIE_EVENTS = 10; // ties with the running maximum = selectHost's random draws
// with ties: the positions in the feasible list where the total equals or exceeds the running
// maximum (new maxima and ties, in order), the first O_MAX_EVENTS of them; O_EVENT_COUNT counts
// them all (more than O_MAX_EVENTS: selectHost scans the totals instead)
export const O_EVENT_COUNT = 11;
export const O_EVENTS = 12; // i32[O_MAX_EVENTS]
export const O_MAX_EVENTS = 32;

// kernel call flags
export const KF_ALL_REASONS = 1;
export const KF_SKIP_SCORE = 2;
/** write the raw score columns only (no NormalizeScore, no normalized/total): the framework normalizes itself */
export const KF_RAW_ONLY = 8;
/** write only the `total` column (raw/normalized are undefined): engine consumers that only select a host */
export const KF_TOTAL_ONLY = 16;
/**
 * flags >> KF_OFF_SHIFT: the node-local filter plugins NOT to run (RB_* bits, FB_FIT for
 * NodeResourcesFit) — those the profile does not enable. 0, the default, runs all six; a node that
 * passes the enabled ones is feasible and scored, as upstream scores every node its filters passed.
 */
export const KF_OFF_SHIFT = 8;

// ---- per-node `reasons` bits: one per node-local filter plugin, in the default profile's filter
// order, then one per resource for NodeResourcesFit (bit REASON_RESOURCE_BASE + resource row)
export const RB_UNSCHEDULABLE = 1; // NodeUnschedulable
export const RB_NODE_NAME = 2; // NodeName
export const RB_TAINT = 4; // TaintToleration
export const RB_AFFINITY = 8; // NodeAffinity
export const RB_PORTS = 16; // NodePorts
// a cross-pod filter check failed (the node passed every node-local one): PodTopologySpread or
// InterPodAffinity, whose status the framework asks the plugin for
export const RB_CROSS_POD = 64;
// (the filter-plugin bit of NodeResourcesFit in KF_OFF_SHIFT masks; its reasons are per resource)
export const FB_FIT = 32;
export const FB_ALL = 63;
export const REASON_RESOURCE_BASE = 8;

// ---- per-node `status` values
export const ST_NOT_EVALUATED = 0;
export const ST_FEASIBLE = 1;
export const ST_FILTERED = 2;

// ---- score columns (raw / normalized), in this order
export const SP_TAINT_TOLERATION = 0;
export const SP_NODE_AFFINITY = 1;
export const SP_NODE_RESOURCES_FIT = 2;
export const SP_BALANCED_ALLOCATION = 3;
export const SP_IMAGE_LOCALITY = 4;
export const NUM_SCORE_PLUGINS = 5;
