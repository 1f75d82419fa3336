import { defineIsolationSuite } from './isolation.fixture.ts';

// Runs alongside isolation-a.int.test.ts; see the fixture for what is proven.
defineIsolationSuite('b', 'a');
