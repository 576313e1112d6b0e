/** What one ingest changed, handed to listeners (the search index) after the transaction commits. */
export interface ItemChanges {
  added: number[];
  updated: number[];
  deleted: number[];
}
