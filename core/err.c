#include "zq/err.h"

const char *zq_strerror(int err)
{
    switch (err) {
#define ZQ_ERR_TEXT_ROW(name, value, text) \
    case (value):                          \
        return (text);
        ZQ_ERR_TABLE(ZQ_ERR_TEXT_ROW)
#undef ZQ_ERR_TEXT_ROW
    default:
        return "unknown error";
    }
}

const char *zq_errname(int err)
{
    switch (err) {
#define ZQ_ERR_NAME_ROW(name, value, text) \
    case (value):                          \
        return #name;
        ZQ_ERR_TABLE(ZQ_ERR_NAME_ROW)
#undef ZQ_ERR_NAME_ROW
    default:
        return "ZQ_ERR_UNKNOWN";
    }
}
