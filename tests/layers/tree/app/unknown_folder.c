/* a folder not in the table */
#include "broker/brk.h"
#include "newlayer/thing.h"
