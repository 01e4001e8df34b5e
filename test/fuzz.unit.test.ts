// The first tenth of each seeded fuzzing campaign (test/fuzz.ts); the rest: fuzz.test.ts.
import { fuzzSuite } from './fuzz.js';

fuzzSuite('first');
