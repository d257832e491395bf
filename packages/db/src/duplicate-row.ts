import { UniqueConstraintViolationException } from "@mikro-orm/core";

/**
 * A row that would repeat a unique key (a user's email, an endpoint's slug). The database's
 * own word for it stops here: callers above db see this, never the ORM's exception.
 */
export class DuplicateRowError extends Error {
  constructor(readonly table: string) {
    super(`a ${table} row with the same unique key exists`);
    this.name = "DuplicateRowError";
  }
}

/** Runs an insert, turning a unique violation into DuplicateRowError. */
export async function insertingInto<T>(table: string, insert: () => Promise<T>): Promise<T> {
  try {
    return await insert();
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException) throw new DuplicateRowError(table);
    throw error;
  }
}
