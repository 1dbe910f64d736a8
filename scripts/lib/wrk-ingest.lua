-- wrk script for scripts/bench http: POST each minted V2 notification once (BODIES names the file,
-- one JSON body per line). Threads take alternate lines; a thread that runs out resends its first
-- body, which the server answers "duplicate", so the figure to read is the recorded count per second.
local threads = 0

function setup(thread)
  thread:set("id", threads)
  threads = threads + 1
end

function init(args)
  bodies = {}
  for line in io.lines(os.getenv("BODIES")) do
    bodies[#bodies + 1] = line
  end
  step = tonumber(os.getenv("THREADS") or "2")
  n = id + 1
end

function request()
  local body = bodies[n] or bodies[id + 1]
  n = n + step
  return wrk.format("POST", "/v1/apple/notifications/v2", { ["Content-Type"] = "application/json" }, body)
end
