import { newRequestId } from '../../../src/lib/request-id';

test('request ids keep their format and do not repeat across pool refills', () => {
  const ids = Array.from({ length: 2_000 }, () => newRequestId()); // several refills of the pool
  for (const id of ids) expect(id).toMatch(/^req_[0-9a-f]{24}$/);
  expect(new Set(ids).size).toBe(ids.length);
});
