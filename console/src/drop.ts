// Files given to the Objects page, each with its path under the folder shown: from a file input
// (a folder input names each file's path in webkitRelativePath) or from a drop, whose folders are
// walked through the File and Directory Entries API (webkitGetAsEntry).

export interface PickedFile {
  file: File;
  /** relative to the folder shown: `name`, or `folder/…/name` */
  path: string;
}

export function pickedFromInput(files: FileList): PickedFile[] {
  return [...files].map((file) => ({ file, path: file.webkitRelativePath || file.name }));
}

function entryFile(entry: FileSystemFileEntry): Promise<File> {
  return new Promise((resolve, reject) => entry.file(resolve, reject));
}

/** Every entry of a directory: readEntries answers in batches until an empty one (MDN: FileSystemDirectoryReader). */
async function directoryEntries(dir: FileSystemDirectoryEntry): Promise<FileSystemEntry[]> {
  const reader = dir.createReader();
  const all: FileSystemEntry[] = [];
  for (;;) {
    const batch = await new Promise<FileSystemEntry[]>((resolve, reject) => reader.readEntries(resolve, reject));
    if (batch.length === 0) return all;
    all.push(...batch);
  }
}

async function walk(entry: FileSystemEntry, into: PickedFile[]): Promise<void> {
  const path = entry.fullPath.replace(/^\//, '');
  if (entry.isFile) into.push({ file: await entryFile(entry as FileSystemFileEntry), path });
  else if (entry.isDirectory) for (const child of await directoryEntries(entry as FileSystemDirectoryEntry)) await walk(child, into);
}

export async function pickedFromDrop(data: DataTransfer): Promise<PickedFile[]> {
  // the entries must be taken before the first await: the drop's data is gone after the event
  const entries = [...data.items].map((i) => i.webkitGetAsEntry()).filter((e): e is FileSystemEntry => e !== null);
  if (entries.length === 0) return [...data.files].map((file) => ({ file, path: file.name }));
  const out: PickedFile[] = [];
  for (const e of entries) await walk(e, out);
  return out;
}
