# fish completion for haltstat(1)
# SPDX-License-Identifier: GPL-2.0-only

set -l cmds record report advise replay top diff help
complete -c haltstat -f
complete -c haltstat -n "not __fish_seen_subcommand_from $cmds" -a record -d 'Capture KVM halt events into a trace.dat file'
complete -c haltstat -n "not __fish_seen_subcommand_from $cmds" -a report -d 'Analyse a recording, a trace.dat or pasted ftrace text'
complete -c haltstat -n "not __fish_seen_subcommand_from $cmds" -a advise -d 'Suggest a halt_poll_ns from a recording'
complete -c haltstat -n "not __fish_seen_subcommand_from $cmds" -a replay -d 'Replay a recording in VMs: predicted vs measured'
complete -c haltstat -n "not __fish_seen_subcommand_from $cmds" -a top -d 'Live per-vCPU halt-polling view'
complete -c haltstat -n "not __fish_seen_subcommand_from $cmds" -a diff -d 'Compare two recordings'
complete -c haltstat -n "not __fish_seen_subcommand_from $cmds" -a help -d "Show a command's usage"
complete -c haltstat -n "not __fish_seen_subcommand_from $cmds" -l help -d 'Show help'
complete -c haltstat -n "not __fish_seen_subcommand_from $cmds" -l version -d 'Show the version'
complete -c haltstat -n "__fish_seen_subcommand_from help" -a "record report advise replay top diff"
complete -c haltstat -n "__fish_seen_subcommand_from help" -a kernel-eras -d 'The kernel eras --kernel-era takes'

# the era names and what sets each apart, from the haltstat being completed
function __haltstat_eras
    set -l hs (commandline -opc)[1]
    command -sq -- $hs; or set hs haltstat
    command $hs help kernel-eras 2>/dev/null
end

# record
complete -c haltstat -n "__fish_seen_subcommand_from record" -s o -l output -r -F -d 'Output file'
complete -c haltstat -n "__fish_seen_subcommand_from record" -s d -l duration -x -d 'Stop after TIME'
complete -c haltstat -n "__fish_seen_subcommand_from record" -s p -l pid -x -a '(__fish_complete_pids)' -d 'Only these VMM processes'
complete -c haltstat -n "__fish_seen_subcommand_from record" -s e -l event -x -d 'Also record SYSTEM:EVENT'
complete -c haltstat -n "__fish_seen_subcommand_from record" -s m -l buffer -x -d 'Ring buffer per CPU in KiB'
complete -c haltstat -n "__fish_seen_subcommand_from record" -l host -d 'Host events only'
complete -c haltstat -n "__fish_seen_subcommand_from record" -l guest -d 'Guest events only'
complete -c haltstat -n "__fish_seen_subcommand_from record" -l no-sched -d 'Leave out sched_switch, sched_wakeup and sched_waking (recorded by default)'
complete -c haltstat -n "__fish_seen_subcommand_from record" -s h -l help -d 'Show help'

# report, advise, replay: shared input option
complete -c haltstat -n "__fish_seen_subcommand_from report advise replay" -s i -l input -r -F -d 'Recording to read'
complete -c haltstat -n "__fish_seen_subcommand_from report advise replay top diff" -s h -l help -d 'Show help'
complete -c haltstat -n "__fish_seen_subcommand_from report" -s o -l output -r -F -d 'Write the report to FILE'
complete -c haltstat -n "__fish_seen_subcommand_from report advise replay diff" -l json -d 'JSON output'
complete -c haltstat -n "__fish_seen_subcommand_from report" -l csv -d 'CSV output'
complete -c haltstat -n "__fish_seen_subcommand_from report" -l svg -r -F -d 'Also write an SVG plot to FILE'
complete -c haltstat -n "__fish_seen_subcommand_from report" -l format -x -a 'text json csv svg openmetrics prometheus markdown' -d 'Output format'
complete -c haltstat -n "__fish_seen_subcommand_from report" -l linear -d 'Linear histogram buckets'
complete -c haltstat -n "__fish_seen_subcommand_from report" -l bucket-size -x -d 'Linear bucket width'
complete -c haltstat -n "__fish_seen_subcommand_from report" -l entries -x -d 'Number of linear buckets'
complete -c haltstat -n "__fish_seen_subcommand_from report" -l pid -x -a '(__fish_complete_pids)' -d 'Only these VMM processes'
complete -c haltstat -n "__fish_seen_subcommand_from report top" -l vm -x -d 'Only this VM'
complete -c haltstat -n "__fish_seen_subcommand_from report" -l vcpu -x -d 'Only this vCPU index'
complete -c haltstat -n "__fish_seen_subcommand_from report" -l start -x -d 'Ignore events before TIME'
complete -c haltstat -n "__fish_seen_subcommand_from report" -l end -x -d 'Ignore events after TIME'
complete -c haltstat -n "__fish_seen_subcommand_from report" -l no-advice -d 'No suggestion'
complete -c haltstat -n "__fish_seen_subcommand_from report" -l no-histograms -d 'The table only'
complete -c haltstat -n "__fish_seen_subcommand_from report" -l per-vm -d 'One histogram per VM'
complete -c haltstat -n "__fish_seen_subcommand_from report" -l threads -d 'Also list every named thread'
complete -c haltstat -n "__fish_seen_subcommand_from report" -l per-vcpu -d 'One histogram per vCPU thread'
complete -c haltstat -n "__fish_seen_subcommand_from report advise" -l objective -x -a 'latency balanced cpu' -d 'What to optimise'
complete -c haltstat -n "__fish_seen_subcommand_from report advise" -l max-poll-cpu -x -d 'Polling budget per vCPU (percent)'
complete -c haltstat -n "__fish_seen_subcommand_from report advise" -l candidates -x -d 'halt_poll_ns values to replay'
complete -c haltstat -n "__fish_seen_subcommand_from report advise replay" -l kernel-era -x -a '(__haltstat_eras)' -d "Replay this kernel's algorithm"

# replay
complete -c haltstat -n "__fish_seen_subcommand_from replay" -l settings -x -d 'halt_poll_ns values to replay'
complete -c haltstat -n "__fish_seen_subcommand_from replay" -l runs -x -d 'Runs per setting'
complete -c haltstat -n "__fish_seen_subcommand_from replay" -l max-halts -x -d 'Halts replayed per vCPU'
complete -c haltstat -n "__fish_seen_subcommand_from replay" -l max-vcpus -x -d 'VMs at most'
complete -c haltstat -n "__fish_seen_subcommand_from replay" -l pin -d 'Pin the waker and the vCPUs apart'
complete -c haltstat -n "__fish_seen_subcommand_from replay" -l no-pin -d 'Pin nothing'
complete -c haltstat -n "__fish_seen_subcommand_from replay" -l no-handovers -d 'Do not count halts in which another task took the CPU'
complete -c haltstat -n "__fish_seen_subcommand_from replay" -l predict-only -d 'No VMs, the predictions alone'

# top
complete -c haltstat -n "__fish_seen_subcommand_from top" -s s -l interval -x -d 'Refresh interval'
complete -c haltstat -n "__fish_seen_subcommand_from top" -s d -l duration -x -d 'Stop after TIME'
complete -c haltstat -n "__fish_seen_subcommand_from top" -s n -l count -x -d 'Stop after N intervals'
complete -c haltstat -n "__fish_seen_subcommand_from top" -s p -l pid -x -a '(__fish_complete_pids)' -d 'Only these VMM processes'
complete -c haltstat -n "__fish_seen_subcommand_from top" -l sort -x -a 'halts hits cpu p99 vm' -d 'Sort key'
complete -c haltstat -n "__fish_seen_subcommand_from top" -l textfile -r -F -d 'Rewrite FILE each interval (Prometheus text)'
complete -c haltstat -n "__fish_seen_subcommand_from top" -s m -l buffer -x -d 'Ring buffer per CPU in KiB'

# diff A B
complete -c haltstat -n "__fish_seen_subcommand_from diff" -F
