// The collection API's shapes as the pages read them, and the names of job states and collection options.
import { get } from "../api";
import type { DomainResultView, EventView, JobView } from "../wire";

export type DomainResult = DomainResultView;
export type Job = JobView;
export type Schedule = EventView;
// The document describes a client as "any": ClientView's serializer (which leaves absent fields out) hides
// its fields from the schema. These are the fields the page reads, as houndgraph/client/schemas.py sends them.
export interface Client {
  id: string;
  name: string;
  type: string;
  hostname: string;
  last_checkin: string;
  version: string;
  current_job_id: number | null;
  current_job?: Job | null;
  completed_job_count: number;
  token?: { id: string; key?: string };
}

// The reference's job states (model.JobStatus).
export const JOB_STATUS: Record<number, string> = {
  [-1]: "Invalid", 0: "Ready", 1: "Running", 2: "Complete", 3: "Canceled", 4: "Timed out", 5: "Failed",
  6: "Ingesting", 7: "Analyzing", 8: "Partially complete",
};
export const CANCELLABLE = new Set([0, 1]);

export const CLIENT_TYPES = [
  { value: "sharphound", label: "SharpHound" }, { value: "azurehound", label: "AzureHound" },
];

export const COLLECTION_OPTIONS = [
  { flag: "session_collection", label: "Sessions" },
  { flag: "local_group_collection", label: "Local groups" },
  { flag: "ad_structure_collection", label: "AD structure" },
  { flag: "cert_services_collection", label: "Certificate services" },
  { flag: "ca_registry_collection", label: "CA registry" },
  { flag: "dc_registry_collection", label: "DC registry" },
  { flag: "all_trusted_domains", label: "All trusted domains" },
];

export async function listClients(): Promise<Client[]> {
  return (await get<{ data: Client[] }>("/clients?limit=1000&sort_by=name")).data;
}

/** A zero time (0001-01-01) means never. */
export const never = (time: string | null | undefined) => !time || time.startsWith("0001-");
