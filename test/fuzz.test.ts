// The other nine tenths of each seeded fuzzing campaign (test/fuzz.ts), with the integration layer
// for their time (about a minute); the first tenth is a unit test: fuzz.unit.test.ts.
import { fuzzSuite } from './fuzz.js';

fuzzSuite('rest');
