import { HedgehopError } from '../../src/core/errors.js';

/** The HedgehopError `promise` rejects with; fails the test if it resolves or throws anything else. */
export async function rejection(promise: Promise<unknown>): Promise<HedgehopError> {
  try {
    await promise;
  } catch (error) {
    if (HedgehopError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a rejection');
}
