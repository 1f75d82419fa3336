import { defineIsolationSuite } from './isolation.fixture.ts';

// Runs alongside isolation-b.int.test.ts; see the fixture for what is proven.
defineIsolationSuite('a', 'b');
