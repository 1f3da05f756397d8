# shellcheck shell=bash
# Sourced by the cost diagnostics (sampling_diag.sh, host_cost_diag.sh): the brrr modes they
# compare, by name, and the command that runs a program in one. "alone" runs it without brrr,
# "full" under brrr with its defaults; every other mode is brrr with the BRRR_* settings below, or
# from EXTRA_MODES ("NAME=VAR=VALUE[,VAR=VALUE] ...").
#
# Must never: run a mode it does not know under a misleading name (brrr_mode_check refuses it).
declare -A brrr_mode_env=(
  [full-nolaunchrecords]="BRRR_LAUNCH_RECORDS=0"
  [full-nodriverrecords]="BRRR_DRIVER_RECORDS=0"
  [budget-3]="BRRR_OVERHEAD_BUDGET=3%"
  [budget-3-attached]="BRRR_OVERHEAD_BUDGET=3%,BRRR_CUPTI_DETACH=0"
  [host-only]="BRRR_CUPTI=0"
  [host-only-paused]="BRRR_CUPTI=0,BRRR_START=paused"
  [host-only-nostacks]="BRRR_CUPTI=0,BRRR_STACKS=0"
  [host-only-nolaunchsample]="BRRR_CUPTI=0,BRRR_LAUNCH_SAMPLE=0"
  [host-only-nopython]="BRRR_CUPTI=0,BRRR_PYTHON=0"
  [sample-10]="BRRR_SAMPLE_DEVICE=10%"
  [sample-10-nocb]="BRRR_SAMPLE_DEVICE=10%,BRRR_CALLBACKS=0"
  [sample-10-detach]="BRRR_SAMPLE_DEVICE=10%,BRRR_CUPTI_DETACH=1"
  [sample-10-detach-window]="BRRR_SAMPLE_DEVICE=10%,BRRR_CUPTI_DETACH=1,BRRR_DETACH_WAIT=window")

# brrr_modes DEFAULT...: sets the array `modes` to MODES (else DEFAULT) plus EXTRA_MODES' names,
# adding their settings; exits 2 on a name it does not know.
brrr_modes() {
  read -r -a modes <<<"${MODES:-$*}"
  local extra mode
  for extra in ${EXTRA_MODES:-}; do
    modes+=("${extra%%=*}")
    brrr_mode_env["${extra%%=*}"]="${extra#*=}"
  done
  for mode in "${modes[@]}"; do
    if [[ "$mode" != alone && "$mode" != full && -z "${brrr_mode_env[$mode]:-}" ]]; then
      echo "unknown mode $mode (known: alone full ${!brrr_mode_env[*]}; or EXTRA_MODES)"
      exit 2
    fi
  done
}

# brrr_mode_command MODE BRRR BRRR_OUTPUT PROGRAM [ARG...]: sets the array `mode_cmd` to the
# command that runs PROGRAM in MODE (under `BRRR run --quiet --output BRRR_OUTPUT` but alone).
brrr_mode_command() {
  local mode="$1" brrr="$2" output="$3"
  shift 3
  mode_cmd=("$brrr" run --quiet --output "$output" -- "$@")
  [[ "$mode" == alone ]] && mode_cmd=("$@")
  if [[ -n "${brrr_mode_env[$mode]:-}" ]]; then
    local -a assignments
    IFS=, read -r -a assignments <<<"${brrr_mode_env[$mode]}"
    mode_cmd=(env "${assignments[@]}" "${mode_cmd[@]}")
  fi
}
