// The collection API's shapes as the pages read them, and the names of job states and collection options.
import { get } from "../api";

export interface DomainResult {
  domain_name: string;
  success: boolean;
  message: string;
  user_count: number;
  group_count: number;
  computer_count: number;
  gpo_count: number;
  ou_count: number;
  container_count: number;
  deleted_count: number;
}

export interface Job {
  id: number;
  client_id: string;
  client_name: string;
  event_id: number | null;
  execution_time: string;
  start_time: string;
  end_time: string;
  status: number;
  status_message: string;
  domain_results: DomainResult[];
  domain_controller?: string | null;
}

export interface Schedule {
  id: number;
  client_id: string;
  rrule: string;
  next_scheduled_at: string | null;
  [flag: string]: unknown;
}

export interface Client {
  id: string;
  name: string;
  type: string;
  hostname: string;
  ip_address: string;
  last_checkin: string;
  version: string;
  domain_controller: string | null;
  current_job_id: number | null;
  current_job?: Job | null;
  completed_job_count: number;
  events: Schedule[];
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
