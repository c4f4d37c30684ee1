// Shard 2 of the documented examples (help-examples.ts says what they are and why in shards).
import { describeExamples } from './help-examples.js';

describeExamples(2);
