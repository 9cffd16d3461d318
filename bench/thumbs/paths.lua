-- wrk script: each request takes the next path of the list file named after `--` (one path per line), round and
-- round, so every cached thumbnail is asked for in turn rather than one hot entry.
local paths = {}
local next_path = 0

function init(args)
    for line in io.lines(args[1]) do
        if #line > 0 then paths[#paths + 1] = line end
    end
end

function request()
    next_path = next_path % #paths + 1
    return wrk.format("GET", paths[next_path])
end
